import { type CalStore, createCalStore } from '@cal/store'
import { migrateCal } from '@cal/store/testing'
import type { Database } from '@kcore/db'
import { followSource, webhookSubscriptions } from '@kcore/webhooks'
import { errorEnvelope } from '../src/cal/response-schemas.js'
import { calWebhookSource, createHandler, type Handler, WEBHOOK_EVENTS } from '../src/index.js'

/** The one write token the suites configure. */
export const TOKEN = 'cal-test-token-7f3a'
/** The pinned clock: Sunday 1 March 2026, 15:00 UTC. */
export const NOW = new Date('2026-03-01T15:00:00Z')
export const BASE = 'http://cal.test/cal/events/v1'

/** A JSON answer. */
export interface Answer {
  status: number
  headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
  body: any
}

/** What each suite works with. */
export interface CalHarness {
  database: Database
  store: CalStore
  handler: Handler
  /** Calls the handler; `token: true` sends the valid token, a string sends that header value. */
  call(
    method: string,
    path: string,
    options?: { body?: unknown; token?: boolean | string; headers?: Record<string, string> },
  ): Promise<Answer>
  /** GET with the token. */
  get(path: string, token?: boolean): Promise<Answer>
  /** POST with the token; asserts the status when given. */
  create(path: string, body: unknown): Promise<Answer>
  /**
   * With `webhooks`: makes the messages of every write committed so far, as a sender's pass
   * does (nothing sends them).
   */
  makeMessages(): Promise<void>
  close(): Promise<void>
}

/**
 * Opens a database, migrates the calendar store and builds the handler with a pinned clock.
 * With `webhooks`, the webhook routes are served, one subscriber takes every event, and
 * `makeMessages()` renders the messages of the writes so far (nothing sends them).
 */
export async function openCal(
  open: (migrate?: typeof migrateCal) => Promise<Database>,
  options: {
    timezone?: string
    storeNow?: () => Date
    publicUrl?: string | (() => string)
    webhooks?: boolean
  } = {},
): Promise<CalHarness> {
  const database = await open(migrateCal)
  const timezone = options.timezone ?? 'UTC'
  const publicUrl = options.publicUrl ?? new URL(BASE).origin
  const store = createCalStore(database, { now: options.storeNow })
  await store.migrate()
  const webhooks = options.webhooks
    ? webhookSubscriptions(database, { events: WEBHOOK_EVENTS })
    : undefined
  await webhooks?.subscribe('cal', {
    url: 'https://93.184.216.34/all',
    events: [...WEBHOOK_EVENTS.cal],
  })
  const handler = createHandler({
    cal: { store, tokens: [TOKEN], timezone, now: () => NOW, webhooks },
    publicUrl,
  })
  const call: CalHarness['call'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers }
    if (o.token === true) headers.authorization = `Bearer ${TOKEN}`
    else if (typeof o.token === 'string') headers.authorization = o.token
    if (o.body !== undefined) headers['content-type'] = 'application/json'
    const res = await handler(
      new Request(`${BASE}${path}`, {
        method,
        headers,
        body: o.body === undefined ? undefined : JSON.stringify(o.body),
      }),
    )
    const text = await res.text()
    const body = text ? JSON.parse(text) : undefined
    // Every error, whatever the route, has the WordPress envelope plus the common keys.
    if (res.status >= 400) errorEnvelope.parse(body)
    return { status: res.status, headers: res.headers, body }
  }
  const source = calWebhookSource(store, { publicUrl, timezone })
  return {
    database,
    store,
    handler,
    call,
    async makeMessages() {
      const db = database.db
      while (await followSource(db, source, 100)) {}
    },
    get: (path, token = false) => call('GET', path, { token }),
    async create(path, body) {
      const answer = await call('POST', path, { body, token: true })
      if (answer.status !== 201) {
        throw new Error(`POST ${path} → ${answer.status} ${JSON.stringify(answer.body)}`)
      }
      return answer
    },
    async close() {
      await handler.close()
      await database.close()
    },
  }
}

/** Ids of a list answer. */
export const ids = (answer: Answer, key = 'events'): number[] =>
  (answer.body?.[key] ?? []).map((r: { id: number }) => r.id)
