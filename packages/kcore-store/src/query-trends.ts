import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { intArray } from './asn.js'
import { committedRead } from './committed-read.js'
import type { DateRange, TrendPoint, TrendView } from './kcore-store-types.js'
import { normalizedShell } from './normalized-shell.js'
import { queryDateRange } from './query-snapshots.js'
import type { KcoreSchema } from './schema.js'
import { decodeShells, FENCE_STRIDE, fromBase64, indexOfAsn } from './shell-blobs.js'
import { assertAsns, assertDateRange, assertIpVersion } from './validate.js'

/**
 * Trends of several ASNs found in the stored blobs by the database, without reading them: per
 * snapshot and ASN, one search of the snapshot's fence (every 256th ASN, in its row:
 * PostgreSQL's `width_bucket`, a binary search in C) names the one block of 256 positions
 * that can hold the AS; the statement returns that 1 KB slice of the ASN blob and the same
 * positions of the shell blob (each one fetch from the one or two out-of-line chunks holding
 * it: the blobs are stored uncompressed), and the AS is looked up in the slice here. A few
 * pages per snapshot, where a binary search of the whole blob fetched a chunk per probe (~17
 * per snapshot) and reading the blobs would move ~100 MB. What answers while the read model
 * loads, and every read with it off. `known` is whether any snapshot of the version has the AS
 * (all are searched; points outside `range` are left out after), so record, rows and date
 * range are of one state.
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
  for (const asn of asns) if (!trends.has(asn)) trends.set(asn, [])
  const known = new Set<number>()
  return committedRead(db, async (trx) => {
    const dateRange = await queryDateRange(trx, ipVersion)
    if (trends.size === 0 || !dateRange) return { dateRange, trends, known }
    const { rows } = await trendSearch(ipVersion, [...trends.keys()]).execute(trx)
    for (const row of rows) {
      const asn = Number(row.asn)
      const block = decodeShells({ asns: fromBase64(row.asns), shells: fromBase64(row.shells) })
      const at = indexOfAsn(block.asns, asn)
      if (at < 0) continue
      known.add(asn)
      if (range?.start !== undefined && row.date < range.start) continue
      if (range?.end !== undefined && row.date > range.end) continue
      const shell = block.shells[at]!
      trends.get(asn)!.push({
        date: row.date,
        shell_index: shell,
        max_shell_index: row.max_shell_index,
        normalized_shell_index: normalizedShell(shell, row.max_shell_index),
      })
    }
    return { dateRange, trends, known }
  })
}

/**
 * The statement of {@link queryTrends}: per ASN and snapshot whose fence holds a block that may
 * have it (the ASN is not below the snapshot's first), that block of both blobs as base64
 * (`asns`: up to {@link FENCE_STRIDE} uint32s; `shells`: the same positions' shell indices),
 * by ASN and date. Exported for the test of what it reads.
 */
export function trendSearch(ipVersion: IpVersion, asns: number[]) {
  return sql<{ asn: string; date: string; max_shell_index: number; asns: string; shells: string }>`
    select w.asn::text as asn, n.date::text as date, n.max_shell_index,
      encode(substring(s.asns from b.first * 4 + 1 for ${FENCE_STRIDE * 4}), 'base64') as asns,
      encode(substring(s.shells from b.first * b.width + 1 for ${FENCE_STRIDE} * b.width),
        'base64') as shells
    from kcore_snapshot n
    join kcore_snapshot_shells s on s.ip_version = n.ip_version and s.date = n.date
    cross join unnest(${intArray(asns)}) as w(asn)
    -- The block's first position and the shell width (the blob sizes' ratio), once a row
    -- (offset 0 keeps the planner from copying the fence search into every use).
    cross join lateral (
      select (width_bucket(w.asn, s.fence) - 1) * ${FENCE_STRIDE} as first,
        octet_length(s.shells) / greatest(octet_length(s.asns) / 4, 1) as width
      offset 0) b
    where n.ip_version = ${ipVersion} and b.first >= 0
    order by w.asn, n.date`
}
