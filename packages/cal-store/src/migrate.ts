import { migrateToLatest } from '@kcore/db'
import type { Kysely } from 'kysely'
import { CalStoreError } from './errors.js'
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE, migrationProvider } from './migrations.js'

/** Runs every pending migration of the calendar store (`@kcore/db`'s `migrateToLatest`). */
export function migrateCalStore<DB>(db: Kysely<DB>): Promise<void> {
  return migrateToLatest(
    db,
    { provider: migrationProvider, table: MIGRATION_TABLE, lockTable: MIGRATION_LOCK_TABLE },
    (message, cause) =>
      new CalStoreError('migration_failed', `calendar store ${message}`, { cause }),
  )
}
