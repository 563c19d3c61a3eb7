import { type Kysely, sql } from 'kysely'
import type { WebhookApi } from './schema.js'

/** One event to tell the subscriptions of an API about: its type and the body's `data`. */
export interface WebhookEvent {
  type: string
  /** The body's `data` (the record as the API returns it), stored as JSON. */
  data: unknown
  /**
   * When the change was made (default: now): the body's `timestamp`, and only subscriptions
   * made by then get the event.
   */
  at?: Date | undefined
}

/**
 * Writes the messages of `events`, one per event and subscription of `api` that asked for its
 * type, in the caller's transaction `trx` (the one that makes the change): a rollback writes
 * nothing, and a commit is delivered even if the process dies right after it. A subscription
 * made later never gets these events; one deleted later takes its undelivered messages with it.
 *
 * One statement for any number of events; resolves to the number of messages written. Wake a
 * sender with `notify()` after the commit to send them at once instead of at its next poll.
 */
export async function enqueueWebhooks<DB>(
  trx: Kysely<DB>,
  api: WebhookApi,
  events: readonly WebhookEvent[],
): Promise<number> {
  if (events.length === 0) return 0
  const types = events.map((e) => e.type)
  const ats = events.map((e) => e.at?.toISOString() ?? null)
  // Bound as text, then cast: a parameter typed json would be serialized once more by
  // postgres.js (a JSON string of the JSON) and arrive as a string.
  const payloads = events.map((e) => JSON.stringify(e.data ?? null))
  // The database's clock at the millisecond, as the sender's clock reads it (see the migration
  // `0003_millisecond_clock`): a message is due to a sender in the same millisecond.
  const now = sql`date_trunc('milliseconds', now())`
  const { rows } = await sql<{ written: number }>`
    with sent as (
      insert into webhook_message (id, subscription_id, api, type, payload, created, next_attempt_at)
      select 'msg_' || replace(gen_random_uuid()::text, '-', ''), s.id, s.api, e.type,
        e.payload::json, coalesce(e.at, ${now}), ${now}
      from unnest(${types}::text[], ${payloads}::text[], ${ats}::timestamptz[]) as e(type, payload, at)
      join webhook_subscription s on s.api = ${api} and e.type = any(s.events)
        and s.created <= coalesce(e.at, ${now})
      returning 1)
    select count(*)::int as written from sent`.execute(trx)
  return Number(rows[0]?.written ?? 0)
}

/** {@link enqueueWebhooks} of one event; returns how many messages were written. */
export async function enqueueWebhook<DB>(
  trx: Kysely<DB>,
  api: WebhookApi,
  type: string,
  data: unknown,
): Promise<number> {
  return enqueueWebhooks(trx, api, [{ type, data }])
}
