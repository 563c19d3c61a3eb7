import { type Migration, sql } from 'kysely'
import type { AnyDb } from './any-db.js'

/**
 * The instants the database writes (a subscription's and a message's `created`) at the
 * millisecond, as the sender's clock and a change's `at` (JavaScript Dates) read them: at the
 * microsecond, a subscription made a few microseconds before a change in the same millisecond
 * came out later than it, and a new message was not yet due to a sender in that millisecond.
 */
export const millisecondClock: Migration = {
  async up(db: AnyDb) {
    for (const table of ['webhook_subscription', 'webhook_message']) {
      await db.schema
        .alterTable(table)
        .alterColumn('created', (c) => c.setDefault(sql`date_trunc('milliseconds', now())`))
        .execute()
    }
  },
}
