import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Database, openPostgresDatabase } from '@kcore/db'
import type { CoreDecomposition, IpVersion } from '@kcore/engine'
import { sql } from 'kysely'
import { createKcoreStore, type KcoreStore } from '../src/index.js'
import { shellTable } from '../src/schema.js'

/** The small real IPv4 fixture: 200 lines of CAIDA's 2014-06-01 file (81 ASes, 71 links). */
export const FIXTURE = fileURLToPath(new URL('./fixtures/20140601.as-rel.txt.bz2', import.meta.url))

/** {@link FIXTURE} with one malformed line (line 165) inserted: a valid bz2 that cannot parse. */
export const MALFORMED_FIXTURE = fileURLToPath(
  new URL('./fixtures/malformed-line.as-rel.txt.bz2', import.meta.url),
)

/** The repository's `examples/data/` (small real CAIDA files, in the repo). */
export const EXAMPLES_DIR = fileURLToPath(new URL('../../service/data/', import.meta.url))

/** The shared folder of real CAIDA files (`../shared/data/caida/` next to the repository). */
export const CAIDA_DIR = fileURLToPath(new URL('../../../../shared/data/caida/', import.meta.url))

/** A migrated store on a fresh database of a `testDatabases()` entry. */
export async function openStore(open: () => Promise<Database>): Promise<KcoreStore> {
  const database = await open()
  const store = createKcoreStore(database)
  await store.migrate()
  return store
}

/** A temporary folder of one test file. */
export interface TempDir {
  path: string
  remove(): Promise<void>
}

/** A fresh temporary folder under the OS temp dir. */
export async function tempDir(prefix: string): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix))
  return { path, remove: () => rm(path, { recursive: true, force: true }) }
}

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
  // Removing data is a change: readers keyed on the revision must not serve the old rows.
  await sql`update kcore_revision set revision = revision + 1`.execute(database.db)
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
