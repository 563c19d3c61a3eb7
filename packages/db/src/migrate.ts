import { type Kysely, type MigrationProvider, Migrator } from 'kysely'

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
 */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  migrations: Migrations,
  toError: (message: string, cause: unknown) => Error,
): Promise<void> {
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
