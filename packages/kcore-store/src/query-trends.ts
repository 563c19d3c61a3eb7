import type { IpVersion } from '@kcore/engine'
import { type Kysely, type RawBuilder, sql } from 'kysely'
import { intArray } from './asn.js'
import { committedRead } from './committed-read.js'
import type { DateRange, TrendPoint, TrendView } from './kcore-store-types.js'
import { normalizedShell } from './normalized-shell.js'
import { queryDateRange } from './query-snapshots.js'
import type { KcoreSchema } from './schema.js'
import { assertAsns, assertDateRange, assertIpVersion } from './validate.js'

/** The uint32 little-endian at the start of a bytea expression, as a bigint. */
const le32 = (bytes: RawBuilder<unknown>) =>
  sql<number>`(get_byte(${bytes}, 0)::bigint + (get_byte(${bytes}, 1)::bigint << 8)
    + (get_byte(${bytes}, 2)::bigint << 16) + (get_byte(${bytes}, 3)::bigint << 24))`

/**
 * Trends of several ASNs searched in the stored blobs by the database, without reading them:
 * per snapshot and ASN, a binary search over the ascending ASN blob, each probe a 4-byte
 * `substring` of it, which PostgreSQL fetches from the one out-of-line chunk that holds it
 * (the blobs are stored uncompressed), then the shell index at the position found. About 17
 * probes per snapshot for 100k ASes: ~0.1 s for one AS over 460 snapshots, where reading the
 * blobs would move ~100 MB. What answers while the read model loads, and every read with it
 * off. `known` is whether any snapshot of the version has the AS (all are searched; points
 * outside `range` are left out after), so record, rows and date range are of one state.
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
      known.add(asn)
      if (range?.start !== undefined && row.date < range.start) continue
      if (range?.end !== undefined && row.date > range.end) continue
      const shell = Number(row.shell)
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

/** The search of {@link queryTrends}: one row per (ASN, snapshot) holding it, by ASN and date. */
function trendSearch(ipVersion: IpVersion, asns: number[]) {
  const blobOf = (date: RawBuilder<unknown>, column: 'asns' | 'shells') =>
    sql`(select s.${sql.ref(column)} from kcore_snapshot_shells s
      where s.ip_version = ${ipVersion} and s.date = ${date})`
  return sql<{ asn: string; date: string; max_shell_index: number; shell: string }>`
    with recursive
    snap as materialized (
      select n.date, n.max_shell_index, octet_length(s.asns) / 4 as count,
        octet_length(s.shells) / greatest(octet_length(s.asns) / 4, 1) as width
      from kcore_snapshot n
      join kcore_snapshot_shells s on s.ip_version = n.ip_version and s.date = n.date
      where n.ip_version = ${ipVersion}),
    -- [lo, hi) narrows to the first position whose ASN is >= the one sought.
    search(date, asn, lo, hi) as (
      select snap.date, w.asn, 0, snap.count from snap cross join unnest(${intArray(asns)}) as w(asn)
      union all
      select b.date, b.asn,
        case when m.value < b.asn then m.mid + 1 else b.lo end,
        case when m.value < b.asn then b.hi else m.mid end
      from search b
      cross join lateral (
        select x.mid, ${le32(sql`substring(${blobOf(sql`b.date`, 'asns')} from x.mid * 4 + 1 for 4)`)} as value
        from (select (b.lo + b.hi) / 2 as mid) x) m
      where b.lo < b.hi)
    select f.asn::text as asn, f.date::text as date, snap.max_shell_index, v.shell::text as shell
    from search f
    join snap on snap.date = f.date
    -- Only at a position inside the blob (past its end the ASN is absent).
    cross join lateral (
      select case when f.lo < snap.count then
          ${le32(sql`substring(${blobOf(sql`f.date`, 'asns')} from f.lo * 4 + 1 for 4)`)} end as found,
        case when f.lo < snap.count then
          (select sum(get_byte(y.bytes, i)::bigint << (8 * i))
           from (select substring(${blobOf(sql`f.date`, 'shells')}
                   from f.lo * snap.width + 1 for snap.width) as bytes) y,
             generate_series(0, snap.width - 1) as i) end as shell) v
    where f.lo = f.hi and f.lo < snap.count and v.found = f.asn
    order by f.asn, f.date`
}
