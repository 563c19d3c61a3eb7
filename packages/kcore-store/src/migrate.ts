import { migrateToLatest } from '@kcore/db'
import type { Kysely } from 'kysely'
import { KcoreStoreError } from './errors.js'
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE, migrationProvider } from './migrations.js'

/** Thrown when a migration fails; `cause` holds the database error. */
export class KcoreMigrationError extends KcoreStoreError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('migration_failed', message, options)
    this.name = 'KcoreMigrationError'
  }
}

/** Runs every pending migration of the store (`@kcore/db`'s `migrateToLatest`). */
export function migrateKcoreStore<DB>(db: Kysely<DB>): Promise<void> {
  return migrateToLatest(
    db,
    { provider: migrationProvider, table: MIGRATION_TABLE, lockTable: MIGRATION_LOCK_TABLE },
    (message, cause) => new KcoreMigrationError(`k-core store ${message}`, { cause }),
  )
}
