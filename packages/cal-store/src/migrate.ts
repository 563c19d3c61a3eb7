import { type Kysely, Migrator } from 'kysely'
import { CalStoreError } from './errors.js'
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE, migrationProvider } from './migrations.js'

/**
 * Runs every pending migration of the calendar store. Kysely's migrator takes a PostgreSQL
 * advisory lock (PGlite: its single connection) so concurrent starts run each migration once.
 */
// biome-ignore lint/suspicious/noExplicitAny: the migrator works on any schema
export async function migrateCalStore(db: Kysely<any>): Promise<void> {
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
    throw new CalStoreError(
      'migration_failed',
      `calendar store migration ${failed ? `${failed} ` : ''}failed: ${reason}`,
      { cause: error },
    )
  }
}
