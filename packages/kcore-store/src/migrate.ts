import { type Kysely, Migrator } from 'kysely'
import { KcoreStoreError } from './errors.js'
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE, migrationProvider } from './migrations.js'

/** Thrown when a migration fails; `cause` holds the database error. */
export class KcoreMigrationError extends KcoreStoreError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('migration_failed', message, options)
    this.name = 'KcoreMigrationError'
  }
}

/**
 * Runs every pending migration of the store. Kysely's migrator takes a PostgreSQL advisory
 * lock (PGlite: its single connection) so concurrent starts run each migration once.
 */
// biome-ignore lint/suspicious/noExplicitAny: the migrator works on any schema
export async function migrateKcoreStore(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName
    const reason = error instanceof Error ? error.message : String(error)
    throw new KcoreMigrationError(
      `k-core store migration ${failed ? `${failed} ` : ''}failed: ${reason}`,
      { cause: error },
    )
  }
}
