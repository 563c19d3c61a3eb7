import { type Database, openPostgresDatabase } from '@kcore/db'
import type { CoreDecomposition } from '@kcore/engine'
import { sql } from 'kysely'

/** A decomposition from `[asn, shell]` pairs (any order), as the engine would return it. */
export function decomposition(pairs: [number, number][]): CoreDecomposition {
  const sorted = [...pairs].sort((a, b) => a[0] - b[0])
  const asns = Uint32Array.from(sorted, ([asn]) => asn)
  const shells = Uint32Array.from(sorted, ([, shell]) => shell)
  return { asns, shells, maxShell: shells.reduce((m, s) => Math.max(m, s), 0) }
}

/** Empties every k-core table (between tests sharing one database). */
export async function clearKcoreTables(database: Database): Promise<void> {
  await sql`truncate kcore_snapshot, kcore_shell_ipv4, kcore_shell_ipv6, kcore_asn_ipv4, kcore_asn_ipv6`.execute(
    database.db,
  )
}

/**
 * A second, independent connection pool to the same database: a real second process on
 * PostgreSQL. PGlite has one connection per process, so there it is the same object.
 */
export async function secondConnection(database: Database): Promise<Database> {
  if (database.dialect === 'pglite') return { ...database, close: async () => {} }
  const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(
    database.db,
  )
  const url = new URL(process.env.DATABASE_URL!)
  url.pathname = `/${rows[0]!.name}`
  return openPostgresDatabase(url.toString())
}

/** Rows of a table (tests only). */
export async function countRows(database: Database, table: string): Promise<number> {
  const { rows } = await sql<{
    n: number
  }>`select count(*)::int as n from ${sql.table(table)}`.execute(database.db)
  return rows[0]!.n
}
