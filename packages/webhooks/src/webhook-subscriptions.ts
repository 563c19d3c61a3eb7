import { randomBytes, randomUUID } from 'node:crypto'
import { type Database, lockUntilCommit } from '@kcore/db'
import { sql } from 'kysely'
import type { WebhookApi, WebhookMessageStatus, WebhookTables } from './schema.js'
import { utcText } from './utc-text.js'
import { WebhookError } from './webhook-error.js'
import { checkWebhookTarget, type LookupAll, parseWebhookUrl } from './webhook-target.js'

/** Subscriptions one API may hold at most; the next is refused (`too_many_subscriptions`). */
export const DEFAULT_MAX_SUBSCRIPTIONS = 100
/** Event types one subscription may name at most (more than either API has). */
const MAX_EVENTS = 100
/** Deliveries one `deliveries()` call returns at most, and by default. */
export const MAX_DELIVERIES_LIMIT = 100
const DEFAULT_DELIVERIES_LIMIT = 20

export interface WebhookSubscriptionsOptions {
  /** The event types each API sends; a subscription may name only these. */
  events: Readonly<Partial<Record<WebhookApi, readonly string[]>>>
  /** Accept loopback and private targets (tests, receivers inside the operator's network). */
  allowPrivate?: boolean | undefined
  /** Default {@link DEFAULT_MAX_SUBSCRIPTIONS}. */
  maxPerApi?: number | undefined
  /** Resolves host names (default: the system resolver); tests inject one. */
  lookup?: LookupAll | undefined
}

/** A subscription as listed: never its secret. */
export interface WebhookSubscription {
  id: string
  url: string
  events: string[]
  created_utc: string
}

/** A subscription as `subscribe` returns it, the one time its secret is shown. */
export interface NewWebhookSubscription extends WebhookSubscription {
  /** `whsec_` and a base64 key: receivers verify signatures with it. */
  secret: string
}

/** One attempt to send one message. */
export interface WebhookDelivery {
  message_id: string
  type: string
  attempted_utc: string
  /** The receiver's HTTP status, or null when none came (timeout, refused, connection error). */
  status: number | null
  error: string | null
  duration_ms: number
  /** Where the message stands now: `failed` once its retries are spent. */
  message_status: WebhookMessageStatus
}

export interface WebhookSubscriptions {
  /** Validates and stores a subscription; its secret is in this answer only. */
  subscribe(
    api: WebhookApi,
    input: { url: string; events: string[] },
  ): Promise<NewWebhookSubscription>
  /** The API's subscriptions, oldest first, without secrets. */
  list(api: WebhookApi): Promise<WebhookSubscription[]>
  /** Ends a subscription and drops its undelivered messages; `not_found` if there is none. */
  remove(api: WebhookApi, id: string): Promise<void>
  /** A subscription's latest attempts, newest first; `not_found` if there is none. */
  deliveries(
    api: WebhookApi,
    id: string,
    options?: { limit?: number | undefined },
  ): Promise<WebhookDelivery[]>
}

/** The subscriptions of both APIs, on the webhook tables of `database` (see `migrateWebhooks`). */
export function webhookSubscriptions(
  database: Database,
  options: WebhookSubscriptionsOptions,
): WebhookSubscriptions {
  const db = database.db.withTables<WebhookTables>()
  const maxPerApi = options.maxPerApi ?? DEFAULT_MAX_SUBSCRIPTIONS

  const notFound = (id: string) =>
    new WebhookError('not_found', `no webhook subscription with id ${JSON.stringify(id)}`)

  function validEvents(api: WebhookApi, events: unknown): string[] {
    const allowed = options.events[api] ?? []
    const invalid = (message: string) =>
      new WebhookError('invalid_input', message, { field: 'events' })
    if (!Array.isArray(events) || events.length === 0)
      throw invalid('events must be a non-empty list of event types')
    if (events.length > MAX_EVENTS) throw invalid(`events lists more than ${MAX_EVENTS} types`)
    for (const event of events) {
      if (typeof event !== 'string' || !allowed.includes(event))
        throw invalid(
          `unknown event type ${JSON.stringify(event)}; known: ${allowed.join(', ') || 'none'}`,
        )
    }
    return [...new Set(events as string[])]
  }

  return {
    async subscribe(api, input) {
      if (typeof input?.url !== 'string')
        throw new WebhookError('invalid_input', 'url must be a string', { field: 'url' })
      const url = parseWebhookUrl(input.url)
      const events = validEvents(api, input.events)
      await checkWebhookTarget(url, {
        allowPrivate: options.allowPrivate ?? false,
        lookup: options.lookup,
      })
      const secret = `whsec_${randomBytes(32).toString('base64')}`
      const id = `wh_${randomUUID().replaceAll('-', '')}`
      const row = await db.transaction().execute(async (trx) => {
        // Counting and inserting under one lock per API: two concurrent subscribes at the cap
        // cannot both pass the count.
        await lockUntilCommit<WebhookTables>(trx, `webhook_subscriptions:${api}`)
        const { count } = await trx
          .selectFrom('webhook_subscription')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('api', '=', api)
          .executeTakeFirstOrThrow()
        if (Number(count) >= maxPerApi)
          throw new WebhookError(
            'too_many_subscriptions',
            `this API already has ${maxPerApi} webhook subscriptions, the most it may hold; delete one first`,
            { field: 'url' },
          )
        return trx
          .insertInto('webhook_subscription')
          .values({ id, api, url: url.href, events, secret })
          .returning(['created'])
          .executeTakeFirstOrThrow()
      })
      return { id, url: url.href, events, secret, created_utc: utcText(row.created) }
    },

    async list(api) {
      const rows = await db
        .selectFrom('webhook_subscription')
        .select(['id', 'url', 'events', 'created'])
        .where('api', '=', api)
        .orderBy('created')
        .orderBy('id')
        .execute()
      return rows.map((r) => ({
        id: r.id,
        url: r.url,
        events: r.events,
        created_utc: utcText(r.created),
      }))
    },

    async remove(api, id) {
      const result = await db
        .deleteFrom('webhook_subscription')
        .where('api', '=', api)
        .where('id', '=', id)
        .executeTakeFirst()
      if (Number(result.numDeletedRows) === 0) throw notFound(id)
    },

    async deliveries(api, id, { limit = DEFAULT_DELIVERIES_LIMIT } = {}) {
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DELIVERIES_LIMIT)
        throw new WebhookError(
          'invalid_input',
          `limit must be an integer from 1 to ${MAX_DELIVERIES_LIMIT}`,
          { field: 'limit' },
        )
      const subscription = await db
        .selectFrom('webhook_subscription')
        .select('id')
        .where('api', '=', api)
        .where('id', '=', id)
        .executeTakeFirst()
      if (!subscription) throw notFound(id)
      const rows = await db
        .selectFrom('webhook_delivery as d')
        .innerJoin('webhook_message as m', 'm.id', 'd.message_id')
        .select([
          'd.message_id',
          'm.type',
          'd.attempted_at',
          'd.status',
          'd.error',
          'd.duration_ms',
          sql<WebhookMessageStatus>`m.status`.as('message_status'),
        ])
        .where('d.subscription_id', '=', id)
        .orderBy('d.id', 'desc')
        .limit(limit)
        .execute()
      return rows.map((r) => ({
        message_id: r.message_id,
        type: r.type,
        attempted_utc: utcText(r.attempted_at),
        status: r.status,
        error: r.error,
        duration_ms: r.duration_ms,
        message_status: r.message_status,
      }))
    },
  }
}
