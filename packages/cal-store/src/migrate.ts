import { migrateToLatest } from '@kcore/db'
import { migrateWebhooks } from '@kcore/webhooks'
import type { Kysely } from 'kysely'
import { CalStoreError } from './errors.js'
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE, migrationProvider } from './migrations.js'

/**
 * Runs every pending migration of the calendar store (`@kcore/db`'s `migrateToLatest`), and the
 * webhook outbox's: the store's writes hand their changes to a hook that writes there, so the
 * store migrates it as the k-core store does (`migrateWebhooks` is idempotent, one migration
 * table for both).
 */
export async function migrateCalStore<DB>(db: Kysely<DB>): Promise<void> {
  await migrateToLatest(
    db,
    { provider: migrationProvider, table: MIGRATION_TABLE, lockTable: MIGRATION_LOCK_TABLE },
    (message, cause) =>
      new CalStoreError('migration_failed', `calendar store ${message}`, { cause }),
  )
  await migrateWebhooks(db)
}
