import { type CalStore, createCalStore } from '@cal/store'
import { migrateCal } from '@cal/store/testing'
import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import {
  followSource,
  type WebhookSource,
  type WebhookSubscriptions,
  webhookSubscriptions,
} from '@kcore/webhooks'
import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { calWebhookSource, WEBHOOK_EVENTS } from '../src/index.js'

// The calendar as a webhook source: writes write nothing for webhooks; a sender's pass makes
// the messages of what was committed since, once, for the subscriptions made by then.

const T = (iso: string) => new Date(iso)

describe.each(testDatabases())('the calendar webhook source on $name', ({ name, open }) => {
  let database: Database
  let store: CalStore
  let webhooks: WebhookSubscriptions
  let source: WebhookSource

  /** One sender's passes until nothing is left; how many steps moved the cursor. */
  const follow = async () => {
    let steps = 0
    while (await followSource(database.db, source, 100)) steps++
    return steps
  }
  const messages = async () =>
    (
      await sql<{ type: string; to: string; id: number }>`select m.type, s.url as to,
          (m.payload->>'id')::bigint as id
        from webhook_message m join webhook_subscription s on s.id = m.subscription_id
        order by m.type, s.url, (m.payload->>'id')::bigint`.execute(database.db)
    ).rows.map((r) => `${r.type}:${Number(r.id)} → ${r.to.split('/').at(-1)}`)
  const payloads = async (type: string) =>
    (
      await sql<{ payload: string }>`select payload::text as payload from webhook_message
        where type = ${type} order by created`.execute(database.db)
    ).rows.map((r) => JSON.parse(r.payload))
  const event = (title: string, extra: object = {}) =>
    store.events.create({
      title,
      start: T('2026-05-01T10:00:00Z'),
      end: T('2026-05-01T11:00:00Z'),
      timezone: 'UTC',
      ...extra,
    })

  beforeAll(async () => {
    database = await open(migrateCal)
    store = createCalStore(database)
    await store.migrate()
    webhooks = webhookSubscriptions(database, { events: WEBHOOK_EVENTS, allowPrivate: true })
    source = calWebhookSource(store, { publicUrl: 'https://events.example' })
  })
  afterAll(async () => {
    await database?.close()
  })
  beforeEach(async () => {
    await follow()
    for (const s of await webhooks.list('cal')) await webhooks.remove('cal', s.id)
  })

  it('writes nothing at the write; a pass makes each message once, for the types asked', async () => {
    const a = await webhooks.subscribe('cal', {
      url: 'http://127.0.0.1:9/a',
      events: ['event.created', 'event.updated'],
    })
    const first = await event('First', { venue: { name: 'Hall A' } })
    const second = await event('Second')
    expect(await messages()).toEqual([])
    await follow()
    await follow()
    // No venue.created: nobody asked for it.
    expect(await messages()).toEqual([
      `event.created:${first.id} → a`,
      `event.created:${second.id} → a`,
    ])
    await store.events.update(second.id, { title: 'Second, again' })
    await follow()
    expect(await messages()).toContain(`event.updated:${second.id} → a`)
    expect((await payloads('event.updated')).at(-1)).toMatchObject({
      id: second.id,
      title: 'Second, again',
    })
    await webhooks.remove('cal', a.id)
  })

  it('sends a change only to the subscriptions made by its time', async () => {
    const early = await event('Before anyone')
    const a = await webhooks.subscribe('cal', {
      url: 'http://127.0.0.1:9/a',
      events: ['event.created'],
    })
    const later = await event('After a')
    // Made before the pass that follows both writes, but after the first.
    const b = await webhooks.subscribe('cal', {
      url: 'http://127.0.0.1:9/b',
      events: ['event.created'],
    })
    await follow()
    expect(await messages()).toEqual([`event.created:${later.id} → a`])
    expect((await messages()).join()).not.toContain(String(early.id))
    await webhooks.remove('cal', a.id)
    await webhooks.remove('cal', b.id)
  })

  it('sends a record as it is when the message is made; one trashed since as {id, type}', async () => {
    await webhooks.subscribe('cal', {
      url: 'http://127.0.0.1:9/a',
      events: ['event.created', 'event.updated', 'event.deleted'],
    })
    const kept = await event('Draft title')
    await store.events.update(kept.id, { title: 'Final title' })
    const gone = await event('Short-lived')
    await store.events.trash(gone.id)
    // A write that rolls back is never sent.
    await expect(
      store.events.create({
        title: '',
        start: T('2026-05-01T10:00:00Z'),
        end: T('2026-05-01T11:00:00Z'),
      }),
    ).rejects.toThrow()
    await follow()
    expect(await messages()).toEqual([
      `event.created:${kept.id} → a`,
      `event.created:${gone.id} → a`,
      `event.deleted:${gone.id} → a`,
      `event.updated:${kept.id} → a`,
    ])
    const created = await payloads('event.created')
    expect(created.find((p) => p.id === kept.id)).toMatchObject({ title: 'Final title' })
    expect(created.find((p) => p.id === gone.id)).toEqual({ id: gone.id, type: 'event' })
    expect((await payloads('event.deleted')).at(-1)).toEqual({ id: gone.id, type: 'event' })
  })

  it(`makes each message once with ten senders following at the same moment (${name})`, async () => {
    await webhooks.subscribe('cal', { url: 'http://127.0.0.1:9/a', events: ['event.created'] })
    await webhooks.subscribe('cal', { url: 'http://127.0.0.1:9/b', events: ['event.created'] })
    const made = await Promise.all(Array.from({ length: 20 }, (_, i) => event(`Many ${i}`)))
    await Promise.all(Array.from({ length: 10 }, () => follow()))
    await follow()
    const got = await messages()
    expect(got).toHaveLength(40)
    expect(new Set(got).size).toBe(40)
    for (const e of made) expect(got).toContain(`event.created:${e.id} → b`)
  })
})
