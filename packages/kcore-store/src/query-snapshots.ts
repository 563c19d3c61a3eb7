import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { assertCalendarDate } from './calendar-date.js'
import { SnapshotNotFoundError } from './errors.js'
import type { SnapshotInfo } from './kcore-store-types.js'
import type { KcoreSchema } from './schema.js'
import { assertIpVersion } from './validate.js'

/** A timestamp as ISO 8601 UTC text, formatted in SQL so both drivers give the same string. */
export const isoUtc = (column: string) =>
  sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/** The snapshot table's columns as a {@link SnapshotInfo}. */
function selectSnapshots(db: Kysely<KcoreSchema>, ipVersion: IpVersion) {
  return db
    .selectFrom('kcore_snapshot')
    .select([
      'date',
      'max_shell_index',
      'unique_asns',
      'link_count',
      'source',
      isoUtc('ingested_at').as('ingested_at'),
      'source_url',
      sql<1 | 2 | null>`serial::int`.as('serial'),
      'sha256',
      isoUtc('file_modified').as('file_modified'),
      'engine_version',
    ])
    .where('ip_version', '=', ipVersion)
}

/** Stored snapshots of one version, oldest first. */
export async function querySnapshots(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
): Promise<SnapshotInfo[]> {
  assertIpVersion(ipVersion)
  return selectSnapshots(db, ipVersion).orderBy('date').execute()
}

/** One stored snapshot; {@link SnapshotNotFoundError} when the date is not stored. */
export async function querySnapshot(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  date: string,
): Promise<SnapshotInfo> {
  assertIpVersion(ipVersion)
  assertCalendarDate(date, 'snapshot date')
  const row = await selectSnapshots(db, ipVersion).where('date', '=', date).executeTakeFirst()
  if (!row) throw new SnapshotNotFoundError(ipVersion, date)
  return row
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
