import { type Kysely, type Migration, type MigrationProvider, sql } from 'kysely'
import { type Migrations, migrateToLatest } from '../migrate.js'
import { WebhookError } from './webhook-error.js'

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the schema exists
type AnyDb = Kysely<any>

const initial: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('webhook_subscription')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('api', 'text', (c) => c.notNull().check(sql`api in ('cal', 'kcore')`))
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('events', sql`text[]`, (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('created', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute()
    await db.schema
      .createIndex('webhook_subscription_api_idx')
      .on('webhook_subscription')
      .columns(['api', 'created'])
      .execute()

    await db.schema
      .createTable('webhook_message')
      .addColumn('id', 'text', (c) => c.primaryKey())
      // A deleted subscription takes its undelivered messages with it: nothing more is sent.
      .addColumn('subscription_id', 'text', (c) =>
        c.notNull().references('webhook_subscription.id').onDelete('cascade'),
      )
      .addColumn('api', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('payload', 'json', (c) => c.notNull())
      .addColumn('created', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) =>
        c.notNull().defaultTo('pending').check(sql`status in ('pending', 'delivered', 'failed')`),
      )
      .addColumn('lease', 'text')
      .addColumn('locked_until', 'timestamptz')
      .addColumn('finished_at', 'timestamptz')
      .execute()
    // What the sender's claim scans: only the pending rows, soonest first.
    await sql`create index webhook_message_due_idx on webhook_message (next_attempt_at)
      where status = 'pending'`.execute(db)
    await sql`create index webhook_message_finished_idx on webhook_message (finished_at)
      where status <> 'pending'`.execute(db)
    await db.schema
      .createIndex('webhook_message_subscription_idx')
      .on('webhook_message')
      .column('subscription_id')
      .execute()

    await db.schema
      .createTable('webhook_delivery')
      .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
      .addColumn('subscription_id', 'text', (c) =>
        c.notNull().references('webhook_subscription.id').onDelete('cascade'),
      )
      .addColumn('message_id', 'text', (c) =>
        c.notNull().references('webhook_message.id').onDelete('cascade'),
      )
      .addColumn('attempted_at', 'timestamptz', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('error', 'text')
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('webhook_delivery_subscription_idx')
      .on('webhook_delivery')
      .columns(['subscription_id', 'id'])
      .execute()
    await db.schema
      .createIndex('webhook_delivery_message_idx')
      .on('webhook_delivery')
      .column('message_id')
      .execute()
  },
}

/**
 * Where each webhook source (a store's committed changes: see `WebhookSource`) has been read
 * through, so the messages are made once, after the commit, by one sender at a time.
 */
const sourceCursors: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('webhook_cursor')
      .addColumn('source', 'text', (c) => c.primaryKey())
      .addColumn('position', 'bigint', (c) => c.notNull())
      .execute()
  },
}

/**
 * The instants the database writes (a subscription's and a message's `created`) at the
 * millisecond, as the sender's clock and a change's `at` (JavaScript Dates) read them: at the
 * microsecond, a subscription made a few microseconds before a change in the same millisecond
 * came out later than it, and a new message was not yet due to a sender in that millisecond.
 */
const millisecondClock: Migration = {
  async up(db: AnyDb) {
    for (const table of ['webhook_subscription', 'webhook_message']) {
      await db.schema
        .alterTable(table)
        .alterColumn('created', (c) => c.setDefault(sql`date_trunc('milliseconds', now())`))
        .execute()
    }
  },
}

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
