import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { intArray } from './asn.js'
import type { DateRange, TrendPoint } from './kcore-store-types.js'
import { normalizedShell } from './normalized-shell.js'
import { type KcoreSchema, shellTable } from './schema.js'
import { assertAsns, assertDateRange, assertIpVersion } from './validate.js'

/**
 * Trends of several ASNs in one query. The shell table's primary key is (asn, date), so each
 * ASN is one index range scan of at most one row per snapshot, and the snapshot table (one
 * row per date) supplies `max_shell_index`.
 */
export async function queryTrends(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  asns: number[],
  range?: DateRange,
): Promise<Map<number, TrendPoint[]>> {
  assertIpVersion(ipVersion)
  assertAsns(asns)
  assertDateRange(range)
  const result = new Map<number, TrendPoint[]>()
  for (const asn of asns) if (!result.has(asn)) result.set(asn, [])
  if (result.size === 0) return result

  const { rows } = await trendQuery(ipVersion, [...result.keys()], range).execute(db)

  for (const row of rows) {
    result.get(Number(row.asn))?.push({
      date: row.date,
      shell_index: row.shell_index,
      max_shell_index: row.max_shell_index,
      normalized_shell_index: normalizedShell(row.shell_index, row.max_shell_index),
    })
  }
  return result
}

/** One row of {@link trendQuery}. */
export interface TrendRow {
  asn: number
  date: string
  shell_index: number
  max_shell_index: number
}

/** The trend SQL itself (also EXPLAINed by `bench/ingest.ts`). Arguments already validated. */
export function trendQuery(ipVersion: IpVersion, asns: number[], range?: DateRange) {
  return sql<TrendRow>`select s.asn, s.date, s.shell_index, n.max_shell_index
    from ${sql.table(shellTable(ipVersion))} s
    join kcore_snapshot n on n.ip_version = ${ipVersion} and n.date = s.date
    where s.asn = any(${intArray(asns)})
    ${range?.start !== undefined ? sql`and s.date >= ${range.start}::date` : sql``}
    ${range?.end !== undefined ? sql`and s.date <= ${range.end}::date` : sql``}
    order by s.asn, s.date`
}
