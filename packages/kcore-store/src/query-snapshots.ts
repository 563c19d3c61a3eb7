import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import type { SnapshotInfo } from './kcore-store.js'
import type { KcoreSchema } from './schema.js'
import { assertIpVersion } from './validate.js'

/** Stored snapshots of one version, oldest first. */
export async function querySnapshots(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
): Promise<SnapshotInfo[]> {
  assertIpVersion(ipVersion)
  return db
    .selectFrom('kcore_snapshot')
    .select([
      'date',
      'max_shell_index',
      'unique_asns',
      'link_count',
      'source',
      // Formatted in SQL so both drivers give the same ISO 8601 UTC string.
      sql<string>`to_char(ingested_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`.as(
        'ingested_at',
      ),
    ])
    .where('ip_version', '=', ipVersion)
    .orderBy('date')
    .execute()
}

/** Stored dates of one version, oldest first. */
export async function queryStoredDates(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
): Promise<string[]> {
  assertIpVersion(ipVersion)
  const rows = await db
    .selectFrom('kcore_snapshot')
    .select('date')
    .where('ip_version', '=', ipVersion)
    .orderBy('date')
    .execute()
  return rows.map((r) => r.date)
}

/** Earliest and latest stored date of one version, or null when none is stored. */
export async function queryDateRange(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
): Promise<{ earliest: string; latest: string } | null> {
  assertIpVersion(ipVersion)
  const row = await db
    .selectFrom('kcore_snapshot')
    .select((eb) => [eb.fn.min('date').as('earliest'), eb.fn.max('date').as('latest')])
    .where('ip_version', '=', ipVersion)
    .executeTakeFirst()
  return row?.earliest && row.latest ? { earliest: row.earliest, latest: row.latest } : null
}
