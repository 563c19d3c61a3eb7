import { type Kysely, sql } from 'kysely'
import type { WebhookApi } from './schema.js'

/** One event to tell the subscriptions of an API about: its type and the body's `data`. */
export interface WebhookEvent {
  type: string
  /** The body's `data` (the record as the API returns it), stored as JSON. */
  data: unknown
}

/** What {@link enqueueWebhooks} did. */
export interface Enqueued {
  /** Messages written (one per event and subscription that asked for its type). */
  written: number
  /** Every type the API's subscriptions ask for, read by the same statement. */
  wanted: ReadonlySet<string>
}

/**
 * Writes the messages of `events`, one per event and subscription of `api` that asked for its
 * type, in the caller's transaction `trx` (the one that makes the change): a rollback writes
 * nothing, and a commit is delivered even if the process dies right after it. A subscription
 * made later never gets these events; one deleted later takes its undelivered messages with it.
 *
 * One statement for any number of events, which also answers the types subscribed now, so a
 * caller that renders only what was asked for learns in the same round trip whether a new
 * subscription wants more. Wake a sender with `notify()` after the commit to send them at once
 * instead of at its next poll.
 */
export async function enqueueWebhooks<DB>(
  trx: Kysely<DB>,
  api: WebhookApi,
  events: readonly WebhookEvent[],
): Promise<Enqueued> {
  const types = events.map((e) => e.type)
  // Bound as text, then cast: a parameter typed json would be serialized once more by
  // postgres.js (a JSON string of the JSON) and arrive as a string.
  const payloads = events.map((e) => JSON.stringify(e.data ?? null))
  const { rows } = await sql<{ written: number; wanted: string[] }>`
    with sent as (
      insert into webhook_message (id, subscription_id, api, type, payload, created, next_attempt_at)
      select 'msg_' || replace(gen_random_uuid()::text, '-', ''), s.id, s.api, e.type,
        e.payload::json, now(), now()
      from unnest(${types}::text[], ${payloads}::text[]) as e(type, payload)
      join webhook_subscription s on s.api = ${api} and e.type = any(s.events)
      returning 1)
    select (select count(*)::int from sent) as written,
      array(select distinct t from webhook_subscription s, unnest(s.events) t
        where s.api = ${api}) as wanted`.execute(trx)
  const row = rows[0]
  return { written: Number(row?.written ?? 0), wanted: new Set(row?.wanted ?? []) }
}

/** {@link enqueueWebhooks} of one event; returns how many messages were written. */
export async function enqueueWebhook<DB>(
  trx: Kysely<DB>,
  api: WebhookApi,
  type: string,
  data: unknown,
): Promise<number> {
  return (await enqueueWebhooks(trx, api, [{ type, data }])).written
}
