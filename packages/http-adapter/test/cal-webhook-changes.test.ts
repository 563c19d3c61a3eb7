import { type CalChangeHook, type CalStore, createCalStore } from '@cal/store'
import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import {
  migrateWebhooks,
  type WebhookSubscriptions,
  webhookSubscriptions,
} from '@kcore/db/webhooks'
import { type KyselyPlugin, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { calWebhookChanges, WEBHOOK_EVENTS } from '../src/index.js'

// The outbox hook inside a write: which statements it adds, and that what it knows of the
// subscriptions is a hint that never loses a message.

const T = (iso: string) => new Date(iso)

describe.each(testDatabases())('the calendar outbox hook on $name', ({ open }) => {
  let database: Database
  let store: CalStore
  let webhooks: WebhookSubscriptions
  /** Statements the hook ran itself (the records it reads go through the store's). */
  let statements: string[] = []

  beforeAll(async () => {
    database = await open()
    await migrateWebhooks(database.db)
    const hook = calWebhookChanges({ publicUrl: 'https://events.example' })
    const counter: KyselyPlugin = {
      transformQuery(args) {
        statements.push(args.node.kind)
        return args.node
      },
      async transformResult(args) {
        return args.result
      },
    }
    const counted: CalChangeHook = (trx, changes, records) =>
      hook(trx.withPlugin(counter), changes, records)
    store = createCalStore(database, { onChanges: counted })
    await store.migrate()
    webhooks = webhookSubscriptions(database, { events: WEBHOOK_EVENTS, allowPrivate: true })
  })
  afterAll(async () => {
    await database?.close()
  })

  const event = (title: string, extra: object = {}) =>
    store.events.create({
      title,
      start: T('2026-05-01T10:00:00Z'),
      end: T('2026-05-01T11:00:00Z'),
      timezone: 'UTC',
      ...extra,
    })
  const messages = async () =>
    (
      await sql<{ type: string; to: string; id: number }>`select m.type, s.url as to,
          (m.payload->>'id')::bigint as id
        from webhook_message m join webhook_subscription s on s.id = m.subscription_id
        order by m.type, s.url`.execute(database.db)
    ).rows.map((r) => `${r.type}:${Number(r.id)} → ${r.to.split('/').at(-1)}`)

  it('writes every message of a wanted write in one statement, asking nothing first', async () => {
    const a = await webhooks.subscribe('cal', {
      url: 'http://127.0.0.1:9/a',
      events: ['event.created', 'event.updated'],
    })
    statements = []
    const first = await event('First')
    // Nothing known yet: one look at the subscriptions, then the insert.
    expect(statements).toHaveLength(2)
    statements = []
    const second = await event('Second')
    await store.events.update(second.id, { title: 'Second, again' })
    // Known from the last insert: one statement per write.
    expect(statements).toHaveLength(2)
    expect(await messages()).toEqual([
      `event.created:${first.id} → a`,
      `event.created:${second.id} → a`,
      `event.updated:${second.id} → a`,
    ])
    await webhooks.remove('cal', a.id)
  })

  it('a subscription made since the last write still gets this write', async () => {
    const a = await webhooks.subscribe('cal', {
      url: 'http://127.0.0.1:9/a',
      events: ['event.created'],
    })
    await event('Known')
    // Made behind the hook's back (another process, say): it wants venues, which were not known.
    const b = await webhooks.subscribe('cal', {
      url: 'http://127.0.0.1:9/b',
      events: ['venue.created'],
    })
    const made = await event('With a new hall', { venue: { name: 'New hall' } })
    const got = await messages()
    expect(got).toContain(`event.created:${made.id} → a`)
    expect(got).toContain(`venue.created:${made.venue_id} → b`)
    await webhooks.remove('cal', a.id)
    await webhooks.remove('cal', b.id)
    // Nobody left: the next write's insert finds nobody (and learns it), the one after asks
    // first (a subscription may have come) and writes nothing.
    statements = []
    await event('Unheard')
    expect(statements).toHaveLength(1)
    statements = []
    await event('Unheard again')
    expect(statements).toEqual(['SelectQueryNode'])
    expect(await messages()).toEqual([])
  })
})
