import { type Kysely, type MigrationProvider, Migrator, sql } from 'kysely'

/** One package's migrations and the bookkeeping tables that keep them apart from others'. */
export interface Migrations {
  provider: MigrationProvider
  /** Kysely's migration table of the package, e.g. `kcore_migration`. */
  table: string
  /** Its lock table, e.g. `kcore_migration_lock`. */
  lockTable: string
}

/**
 * Runs every pending migration of one package. Kysely's migrator takes a PostgreSQL advisory
 * lock (PGlite: its single connection), so concurrent starts run each migration once. A failure
 * becomes the package's own error (`toError(message, cause)`), naming the migration that failed.
 * A database that already has every migration (each start after the first) is told by one
 * read of the migration table, without the migrator's reads of the whole catalog.
 */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  migrations: Migrations,
  toError: (message: string, cause: unknown) => Error,
): Promise<void> {
  if (await upToDate(db, migrations)) return
  const migrator = new Migrator({
    db,
    provider: migrations.provider,
    migrationTableName: migrations.table,
    migrationLockTableName: migrations.lockTable,
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName
    const reason = error instanceof Error ? error.message : String(error)
    throw toError(`migration ${failed ? `${failed} ` : ''}failed: ${reason}`, error)
  }
}

/**
 * True when the migration table names exactly the provider's migrations. Migrations are only
 * ever added, so a database that was up to date stays so without a lock; anything else (no
 * table yet, one missing, one this code does not know) is the migrator's to handle or refuse.
 */
async function upToDate<DB>(db: Kysely<DB>, migrations: Migrations): Promise<boolean> {
  const table = await sql<{ found: boolean }>`select to_regclass(${migrations.table}) is not null
    as found`.execute(db)
  if (!table.rows[0]?.found) return false
  const { rows } = await sql<{
    name: string
  }>`select name from ${sql.table(migrations.table)}`.execute(db)
  const applied = new Set(rows.map((row) => row.name))
  const known = Object.keys(await migrations.provider.getMigrations())
  return applied.size === known.length && known.every((name) => applied.has(name))
}
