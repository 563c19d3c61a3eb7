import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { committedRead } from './committed-read.js'
import type { Distribution } from './kcore-store-types.js'
import { querySnapshot } from './query-snapshots.js'
import { type KcoreSchema, shellTable } from './schema.js'

/** How many ASes each non-empty shell of a snapshot holds, ascending by shell index. */
export async function queryDistribution(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  date: string,
): Promise<Distribution> {
  // The record and its rows from one committed state (a re-ingest may replace both meanwhile).
  const [snapshot, rows] = await committedRead(db, async (trx) => {
    const record = await querySnapshot(trx, ipVersion, date)
    const { rows } = await sql<{ shell_index: number; count: number }>`
      select shell_index, count(*)::int as count from ${sql.table(shellTable(ipVersion))}
      where date = ${date}::date group by shell_index order by shell_index`.execute(trx)
    return [record, rows] as const
  })
  return {
    date,
    ip_version: ipVersion,
    max_shell_index: snapshot.max_shell_index,
    unique_asns: snapshot.unique_asns,
    link_count: snapshot.link_count,
    shells: rows,
  }
}
