import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { assertCalendarDate } from './calendar-date.js'
import { SnapshotNotFoundError } from './errors.js'
import type { SnapshotInfo } from './kcore-store-types.js'
import { isoUtc } from './query-snapshots.js'
import type { KcoreSchema } from './schema.js'
import { base64, type DecodedShells, decodeShells, fromBase64 } from './shell-blobs.js'
import { assertIpVersion } from './validate.js'

/**
 * A stored snapshot, decoded: its record, the stamp of its content (its `ingested_at` to the
 * microsecond, set anew by every (re-)ingest) and its shell indices. Shared by every read that
 * gets it (the reads of one revision share it): never modified.
 */
export interface StoredShells extends DecodedShells {
  snapshot: SnapshotInfo
  stamp: string
  /** Memory it holds, for the memo's bound. */
  byteLength: number
}

/** Where the queries get a snapshot's {@link StoredShells} (shared by the reads of a revision). */
export type ShellSource = (ipVersion: IpVersion, date: string) => Promise<StoredShells>

/** The stamp of a snapshot's content (see {@link StoredShells.stamp}). */
export const STAMP = sql<string>`(extract(epoch from n.ingested_at) * 1000000)::bigint::text`

/**
 * The listed snapshots of a version with their blobs, record and blobs in ONE statement (so
 * from one committed state), decoded; the dates not stored are absent from the answer.
 */
export async function loadStoredShells(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  dates: string[],
): Promise<Map<string, StoredShells>> {
  assertIpVersion(ipVersion)
  for (const date of dates) assertCalendarDate(date, 'snapshot date')
  const { rows } = await sql<
    SnapshotInfo & { stamp: string; asns: string; shells: string }
  >`select n.date::text as date, n.max_shell_index, n.unique_asns, n.link_count, n.source,
      ${isoUtc('n.ingested_at')} as ingested_at, n.source_url, n.serial::int as serial, n.sha256,
      ${isoUtc('n.file_modified')} as file_modified, n.engine_version, ${STAMP} as stamp,
      ${base64('s.asns')} as asns, ${base64('s.shells')} as shells
    from kcore_snapshot n
    join kcore_snapshot_shells s on s.ip_version = n.ip_version and s.date = n.date
    where n.ip_version = ${ipVersion} and n.date = any(${`{${dates.join(',')}}`}::date[])`.execute(
    db,
  )
  const found = new Map<string, StoredShells>()
  for (const { stamp, asns, shells, ...snapshot } of rows) {
    const decoded = decodeShells({ asns: fromBase64(asns), shells: fromBase64(shells) })
    found.set(snapshot.date, {
      snapshot,
      stamp,
      ...decoded,
      byteLength: decoded.asns.byteLength + decoded.shells.byteLength + 1024,
    })
  }
  return found
}

/** One stored snapshot, decoded; {@link SnapshotNotFoundError} when the date is not stored. */
export async function loadSnapshotShells(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  date: string,
): Promise<StoredShells> {
  const found = (await loadStoredShells(db, ipVersion, [date])).get(date)
  if (!found) throw new SnapshotNotFoundError(ipVersion, date)
  return found
}
