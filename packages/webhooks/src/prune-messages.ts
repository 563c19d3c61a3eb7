import type { Kysely } from 'kysely'
import type { WebhookTables } from './schema.js'

/** Drops finished messages older than `before` (their attempts go with them: `on delete cascade`). */
export async function pruneMessages(db: Kysely<WebhookTables>, before: Date): Promise<void> {
  await db
    .deleteFrom('webhook_message')
    .where('status', '<>', 'pending')
    .where('finished_at', '<', before)
    .execute()
}
