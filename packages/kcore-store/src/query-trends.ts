import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { committedRead } from './committed-read.js'
import type { DateRange, TrendPoint, TrendView } from './kcore-store-types.js'
import { normalizedShell } from './normalized-shell.js'
import { queryKnownAsns } from './query-known-asns.js'
import { queryDateRange } from './query-snapshots.js'
import type { KcoreSchema } from './schema.js'
import { decodeShells, indexOfAsn } from './shell-blobs.js'
import { assertAsns, assertDateRange, assertIpVersion } from './validate.js'

/**
 * Trends of several ASNs straight from the stored blobs, without the read model: every
 * snapshot of the range is read and decoded, and each ASN looked up in each by binary search.
 * One committed state for the snapshots, the date range and the known ASNs. Costs a read of the
 * whole range per call: the read model (`trend-read-model.ts`) is what serves trends; this is
 * the path with it turned off, and its fallback while it is at another revision than the reader.
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
  return committedRead(db, async (trx) => {
    const dateRange = await queryDateRange(trx, ipVersion)
    const known = await queryKnownAsns(trx, ipVersion, [...trends.keys()])
    if (known.size === 0) return { dateRange, trends, known }
    const { rows } = await sql<{
      date: string
      max_shell_index: number
      asns: Uint8Array
      shells: Uint8Array
    }>`select n.date::text as date, n.max_shell_index, s.asns, s.shells
      from kcore_snapshot n
      join kcore_snapshot_shells s on s.ip_version = n.ip_version and s.date = n.date
      where n.ip_version = ${ipVersion}
      ${range?.start !== undefined ? sql`and n.date >= ${range.start}::date` : sql``}
      ${range?.end !== undefined ? sql`and n.date <= ${range.end}::date` : sql``}
      order by n.date`.execute(trx)
    for (const row of rows) {
      const decoded = decodeShells(row)
      for (const asn of known) {
        const at = indexOfAsn(decoded.asns, asn)
        if (at < 0) continue
        const shell = decoded.shells[at]!
        trends.get(asn)!.push({
          date: row.date,
          shell_index: shell,
          max_shell_index: row.max_shell_index,
          normalized_shell_index: normalizedShell(shell, row.max_shell_index),
        })
      }
    }
    return { dateRange, trends, known }
  })
}
