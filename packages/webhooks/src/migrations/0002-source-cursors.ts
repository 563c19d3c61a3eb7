import type { Migration } from 'kysely'
import type { AnyDb } from './any-db.js'

/**
 * Where each webhook source (a store's committed changes: see `WebhookSource`) has been read
 * through, so the messages are made once, after the commit, by one sender at a time.
 */
export const sourceCursors: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('webhook_cursor')
      .addColumn('source', 'text', (c) => c.primaryKey())
      .addColumn('position', 'bigint', (c) => c.notNull())
      .execute()
  },
}
