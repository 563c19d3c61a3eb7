import { type Kysely, sql } from 'kysely'
import type { WebhookApi } from './schema.js'

/**
 * Writes the messages of one event, one per subscription of `api` that asked for `type`, in
 * the caller's transaction `trx` (the one that makes the change): a rollback writes nothing,
 * and a commit is delivered even if the process dies right after it. A subscription made later
 * never gets this event; one deleted later takes its undelivered messages with it.
 *
 * `data` is the body's `data` (the record as the API returns it), stored as JSON. Returns how
 * many messages were written. Wake a sender with `notify()` after the commit to send them at
 * once instead of at its next poll.
 */
export async function enqueueWebhook<DB>(
  trx: Kysely<DB>,
  api: WebhookApi,
  type: string,
  data: unknown,
): Promise<number> {
  const payload = JSON.stringify(data ?? null)
  // Bound as text, then cast: a parameter typed json would be serialized once more by
  // postgres.js (a JSON string of the JSON) and arrive as a string.
  const result = await sql`
    insert into webhook_message (id, subscription_id, api, type, payload, created, next_attempt_at)
    select 'msg_' || replace(gen_random_uuid()::text, '-', ''), s.id, s.api, ${type},
      ${payload}::text::json, now(), now()
    from webhook_subscription s
    where s.api = ${api} and ${type} = any(s.events)`.execute(trx)
  return Number(result.numAffectedRows ?? 0)
}
