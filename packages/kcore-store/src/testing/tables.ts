import type { Database } from '@kcore/db'
import type { CoreDecomposition, IpVersion } from '@kcore/engine'
import { sql } from 'kysely'
import { shellTable } from '../schema.js'

/** Empties every k-core table (between tests sharing one database). */
export async function clearKcoreTables(database: Database): Promise<void> {
  await sql`truncate kcore_snapshot, kcore_shell_ipv4, kcore_shell_ipv6, kcore_asn_ipv4, kcore_asn_ipv6`.execute(
    database.db,
  )
  // Removing data is a change: readers keyed on the revision must not serve the old rows.
  await sql`update kcore_revision set revision = revision + 1`.execute(database.db)
}

/** Rows any table holds for one version and date: all zero when nothing of it is stored. */
export async function rowsOfDate(
  database: Database,
  ipVersion: IpVersion,
  date: string,
): Promise<{ snapshots: number; shells: number }> {
  const { rows } = await sql<{ snapshots: number; shells: number }>`
    select (select count(*)::int from kcore_snapshot
            where ip_version = ${ipVersion} and date = ${date}::date) as snapshots,
           (select count(*)::int from ${sql.table(shellTable(ipVersion))}
            where date = ${date}::date) as shells`.execute(database.db)
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
  const { rows } = await sql<{ asn: string | number; shell_index: number }>`
    select asn, shell_index from ${sql.table(shellTable(ipVersion))}
    where date = ${date}::date order by asn`.execute(database.db)
  return rows.map((r) => [Number(r.asn), r.shell_index])
}

/** `[asn, shell]` pairs of a decomposition, by ASN (to compare with {@link storedShells}). */
export function shellPairs(decomposition: CoreDecomposition): [number, number][] {
  return Array.from(decomposition.asns, (asn, i): [number, number] => [
    asn,
    decomposition.shells[i]!,
  ]).sort((a, b) => a[0] - b[0])
}
