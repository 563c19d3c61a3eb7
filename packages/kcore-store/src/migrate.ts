import { migrateToLatest } from '@kcore/db'
import { migrateWebhooks } from '@kcore/webhooks'
import type { Kysely } from 'kysely'
import { KcoreStoreError } from './errors.js'
import {
  KCORE_MIGRATION_LOCK_TABLE,
  KCORE_MIGRATION_TABLE,
  kcoreMigrationProvider,
} from './migrations.js'

/** Thrown when a migration fails; `cause` holds the database error. */
export class KcoreMigrationError extends KcoreStoreError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('migration_failed', message, options)
    this.name = 'KcoreMigrationError'
  }
}

/**
 * Runs every pending migration of the store (`@kcore/db`'s `migrateToLatest`), and the webhook
 * outbox's: `ingest` writes its messages there, so the store migrates what it writes to (a host
 * using the store gets working webhooks without a step of its own; `migrateWebhooks` is
 * idempotent, with its own migration table, so the calendar store running it too is harmless).
 */
export async function migrateKcoreStore<DB>(db: Kysely<DB>): Promise<void> {
  await migrateToLatest(
    db,
    {
      provider: kcoreMigrationProvider,
      table: KCORE_MIGRATION_TABLE,
      lockTable: KCORE_MIGRATION_LOCK_TABLE,
    },
    (message, cause) => new KcoreMigrationError(`k-core store ${message}`, { cause }),
  )
  await migrateWebhooks(db)
}
