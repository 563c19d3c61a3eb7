import type { Database } from '@kcore/db'
import type { CoreDecomposition, IpVersion } from '@kcore/engine'
import { sql } from 'kysely'
import { decodeShells, FENCE_STRIDE } from '../shell-blobs.js'

/** Empties every k-core table (between tests sharing one database). */
export async function clearKcoreTables(database: Database): Promise<void> {
  await sql`truncate kcore_snapshot, kcore_snapshot_shells, kcore_snapshot_links, kcore_known_asns, kcore_as_entry,
    kcore_as_registry`.execute(database.db)
  // Removing data is a change: readers keyed on the revision must not serve the old rows.
  await sql`update kcore_revision set revision = revision + 1`.execute(database.db)
}

/**
 * What the tables hold for one version and date: its snapshot row (0 or 1) and the ASes of its
 * stored shell blob; all zero when nothing of it is stored.
 */
export async function rowsOfDate(
  database: Database,
  ipVersion: IpVersion,
  date: string,
): Promise<{ snapshots: number; shells: number }> {
  const { rows } = await sql<{ snapshots: number; shells: number }>`
    select (select count(*)::int from kcore_snapshot
            where ip_version = ${ipVersion} and date = ${date}::date) as snapshots,
           coalesce((select octet_length(asns)::int / 4 from kcore_snapshot_shells
            where ip_version = ${ipVersion} and date = ${date}::date), 0) as shells`.execute(
    database.db,
  )
  return rows[0]!
}

/** Rows of a table. */
export async function countRows(database: Database, table: string): Promise<number> {
  const { rows } = await sql<{
    n: number
  }>`select count(*)::int as n from ${sql.table(table)}`.execute(database.db)
  return rows[0]!.n
}

/** Stored `[asn, shell_index]` pairs of one snapshot, by ASN. */
export async function storedShells(
  database: Database,
  ipVersion: IpVersion,
  date: string,
): Promise<[number, number][]> {
  const { rows } = await sql<{ asns: Uint8Array; shells: Uint8Array }>`
    select asns, shells from kcore_snapshot_shells
    where ip_version = ${ipVersion} and date = ${date}::date`.execute(database.db)
  if (!rows[0]) return []
  const { asns, shells } = decodeShells(rows[0])
  return Array.from(asns, (asn, i): [number, number] => [asn, shells[i]!])
}

/** `[asn, shell]` pairs of a decomposition, by ASN (to compare with {@link storedShells}). */
export function shellPairs(decomposition: CoreDecomposition): [number, number][] {
  return Array.from(decomposition.asns, (asn, i): [number, number] => [
    asn,
    decomposition.shells[i]!,
  ]).sort((a, b) => a[0] - b[0])
}

/** Distinct ASNs of the version's known-ASN blob. */
export async function countKnownAsns(database: Database, ipVersion: IpVersion): Promise<number> {
  const { rows } = await sql<{ n: number }>`select coalesce(
      (select octet_length(asns)::int / 4 from kcore_known_asns where ip_version = ${ipVersion}),
      0) as n`.execute(database.db)
  return rows[0]!.n
}

/** ASes over every stored snapshot of the version (the sum of their blobs' counts). */
export async function storedAsnCount(database: Database, ipVersion: IpVersion): Promise<number> {
  const { rows } = await sql<{ n: number }>`select coalesce(sum(octet_length(asns) / 4), 0)::int
      as n from kcore_snapshot_shells where ip_version = ${ipVersion}`.execute(database.db)
  return rows[0]!.n
}

/**
 * Stored snapshots whose fence is not every {@link FENCE_STRIDE}-th ASN of their own ASN blob,
 * computed by the database from the blob (a second reading of the rule, apart from `fenceOf`):
 * 0 when every fence matches the blob it was written with. For small test snapshots
 * (`get_byte` detoasts the blob on every call).
 */
export async function fenceMismatches(database: Database): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from kcore_snapshot_shells s
    where s.fence is distinct from array(
      select get_byte(s.asns, i * ${FENCE_STRIDE * 4})::bigint
        + (get_byte(s.asns, i * ${FENCE_STRIDE * 4} + 1)::bigint << 8)
        + (get_byte(s.asns, i * ${FENCE_STRIDE * 4} + 2)::bigint << 16)
        + (get_byte(s.asns, i * ${FENCE_STRIDE * 4} + 3)::bigint << 24)
      from generate_series(0, (octet_length(s.asns) / 4 + ${FENCE_STRIDE - 1}) / ${FENCE_STRIDE} - 1) i
      order by i)`.execute(database.db)
  return rows[0]!.n
}
