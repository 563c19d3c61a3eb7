import { Buffer } from 'node:buffer'
import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { intArray } from './asn.js'
import type { DateRange, TrendPoint, TrendView } from './kcore-store-types.js'
import { normalizedShell } from './normalized-shell.js'
import type { KcoreSchema } from './schema.js'
import { decodeShells, FENCE_STRIDE, fromBase64, indexOfAsn } from './shell-blobs.js'
import { assertAsns, assertDateRange, assertIpVersion } from './validate.js'

/**
 * Trends of several ASNs found in the stored blobs by the database, without reading them whole:
 * per snapshot and ASN, one search of the snapshot's fence (every 256th ASN, in its row:
 * PostgreSQL's `width_bucket`, a binary search in C) names the one block of 256 positions that
 * can hold the AS, one fetch of that 1 KB slice of the ASN blob (from the one or two
 * out-of-line chunks holding it: the blobs are stored uncompressed) is searched for the ASN's
 * bytes, and only where it is found is its shell index fetched and sent (see
 * {@link trendSearch}): a few pages per snapshot and a few bytes per point. What answers while
 * the read model loads, and every read with it off. `known` is whether any snapshot of the
 * version has the AS (all are searched; points outside `range` are left out after). The
 * version's date range and the points come from one statement, so from one committed state.
 */
export async function queryTrends(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  asns: number[],
  range?: DateRange,
): Promise<TrendView> {
  assertIpVersion(ipVersion)
  assertAsns(asns)
  assertDateRange(range)
  const trends = new Map<number, TrendPoint[]>()
  for (const asn of asns) trends.set(asn, [])
  const known = new Set<number>()
  const { rows } = await sql<SearchRow & { earliest: string | null; latest: string | null }>`
    select r.earliest, r.latest, t.* from (
      select min(date)::text as earliest, max(date)::text as latest from kcore_snapshot
      where ip_version = ${ipVersion}) r
    left join lateral (${trendSearch(ipVersion, [...trends.keys()])}) t on true`.execute(db)
  const first = rows[0]
  const dateRange =
    first?.earliest && first.latest ? { earliest: first.earliest, latest: first.latest } : null
  for (const row of rows) {
    if (row.asn === null) continue
    const asn = Number(row.asn)
    const shell = row.shell !== null ? littleEndianHex(row.shell) : searchBlock(row, asn)
    if (shell === undefined) continue
    known.add(asn)
    if (range?.start !== undefined && row.date < range.start) continue
    if (range?.end !== undefined && row.date > range.end) continue
    trends.get(asn)!.push({
      date: row.date,
      shell_index: shell,
      max_shell_index: row.max_shell_index,
      normalized_shell_index: normalizedShell(shell, row.max_shell_index),
    })
  }
  // A lateral join keeps no order of its own.
  for (const points of trends.values()) points.sort(byDate)
  return { dateRange, trends, known }
}

const byDate = (a: TrendPoint, b: TrendPoint) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)

/** An unsigned little-endian integer written as hex (`encode(bytes, 'hex')`). */
function littleEndianHex(hex: string): number {
  const bytes = Buffer.from(hex, 'hex')
  return bytes.readUIntLE(0, bytes.length)
}

/** The shell index of `asn` in a row's block (base64 slices of both blobs), if it is there. */
function searchBlock(row: { asns: string | null; shells: string | null }, asn: number) {
  const block = decodeShells({
    asns: fromBase64(row.asns ?? ''),
    shells: fromBase64(row.shells ?? ''),
  })
  const at = indexOfAsn(block.asns, asn)
  return at < 0 ? undefined : block.shells[at]
}

/** `asns` as the hex of their uint32 little-endian bytes: the blob's form of each. */
function needles(asns: number[]) {
  const bytes = Buffer.alloc(4)
  const text = asns.map((asn) => {
    bytes.writeUInt32LE(asn)
    return bytes.toString('hex')
  })
  return sql`${`{${text.join(',')}}`}::text[]`
}

/** A row of {@link trendSearch}. */
interface SearchRow {
  asn: string | null
  date: string
  max_shell_index: number
  shell: string | null
  asns: string | null
  shells: string | null
}

/**
 * The statement of {@link queryTrends}: per ASN and snapshot, the block of positions its fence
 * names (a 1 KB slice of the ASN blob), searched by `position` for the ASN's four bytes. The
 * ASNs are distinct and stored on 4-byte boundaries, so no match means the AS is absent and a
 * match on a boundary is the AS: then the row carries its shell index's bytes (`shell`, hex,
 * one slice of the shell blob). A first match off a boundary (bytes of two neighbours that
 * spell the ASN, rare) says nothing: that row carries the whole block of both blobs
 * (`asns`, `shells`, base64) for the caller to search. Rows only where the bytes occur.
 * Exported for the test of what it reads.
 */
export function trendSearch(ipVersion: IpVersion, asns: number[]) {
  return sql<SearchRow>`
    select w.asn::text as asn, n.date::text as date, n.max_shell_index,
      case when p.at % 4 = 0 then encode(substring(s.shells
        from (b.first + p.at / 4) * b.width + 1 for b.width), 'hex') end as shell,
      case when p.at % 4 <> 0 then encode(k.block, 'base64') end as asns,
      case when p.at % 4 <> 0 then encode(substring(s.shells
        from b.first * b.width + 1 for ${FENCE_STRIDE} * b.width), 'base64') end as shells
    from kcore_snapshot n
    join kcore_snapshot_shells s on s.ip_version = n.ip_version and s.date = n.date
    cross join unnest(${intArray(asns)}, ${needles(asns)}) as w(asn, needle)
    -- Each step once a row (offset 0 keeps the planner from copying an expression, the
    -- fence search or the slice fetch, into every use of it). The block's first position
    -- and the shell width (the blob sizes' ratio) ...
    cross join lateral (
      select (width_bucket(w.asn, s.fence) - 1) * ${FENCE_STRIDE} as first,
        octet_length(s.shells) / greatest(octet_length(s.asns) / 4, 1) as width
      offset 0) b
    -- ... the block (none when the ASN is below the snapshot's first) ...
    cross join lateral (
      select substring(s.asns from b.first * 4 + 1 for ${FENCE_STRIDE * 4}) as block
      where b.first >= 0 offset 0) k
    -- ... and the byte offset of the ASN's first occurrence in it (-1: none).
    cross join lateral (
      select position(decode(w.needle, 'hex') in k.block) - 1 as at offset 0) p
    where n.ip_version = ${ipVersion} and p.at >= 0`
}
