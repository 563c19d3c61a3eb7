import { type Migrations, migrateToLatest } from '@kcore/db'
import type { Kysely, Migration, MigrationProvider } from 'kysely'
import { initial } from './migrations/0001-initial.js'
import { sourceCursors } from './migrations/0002-source-cursors.js'
import { millisecondClock } from './migrations/0003-millisecond-clock.js'
import { WebhookError } from './webhook-error.js'

/**
 * The migrations of `@kcore/webhooks`, in order, one per file under `migrations/`. The ids are
 * what databases have recorded: they never change once released.
 */
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_source_cursors': sourceCursors,
  '0003_millisecond_clock': millisecondClock,
}

/** This module's migrations, kept apart from every store's by their own bookkeeping tables. */
export const WEBHOOK_MIGRATIONS: Migrations = {
  provider: { getMigrations: async () => migrations } satisfies MigrationProvider,
  table: 'webhook_migration',
  lockTable: 'webhook_migration_lock',
}

/** Creates or updates the webhook tables; safe to run from several processes at once. */
export function migrateWebhooks<DB>(db: Kysely<DB>): Promise<void> {
  return migrateToLatest(
    db,
    WEBHOOK_MIGRATIONS,
    (message, cause) => new WebhookError('migration_failed', `webhooks ${message}`, { cause }),
  )
}
