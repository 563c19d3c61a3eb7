import { type Migration, sql } from 'kysely'
import type { AnyDb } from './any-db.js'

/** The subscriptions, the outbox and the log of attempts. */
export const initial: Migration = {
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
