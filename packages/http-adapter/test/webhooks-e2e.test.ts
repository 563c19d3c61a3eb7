import { createCalStore } from '@cal/store'
import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { createKcoreStore } from '@kcore/store'
import { createWebhookSender, type WebhookSender, webhookSubscriptions } from '@kcore/webhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Received,
  type Receiver,
  startReceiver,
} from '../../webhooks/test/webhook-receiver.js'
import { calWebhookSource, createHandler, type Handler, WEBHOOK_EVENTS } from '../src/index.js'

const ORIGIN = 'https://events.example'
const CAL_TOKEN = 'cal-token-e2e'
const ADMIN_TOKEN = 'admin-token-e2e'
const SECRET_TEXT = 'only-for-password-holders'

/** One snapshot of three ASes, as the engine would hand it over. */
const snapshot = (date: string, shell: number) => ({
  ipVersion: 'ipv4' as const,
  date,
  decomposition: {
    asns: Uint32Array.from([1, 2, 3]),
    shells: Uint32Array.from([shell, shell, 1]),
    maxShell: shell,
  },
  linkCount: 3,
  source: `${date}.as-rel.txt`,
})

describe.each(testDatabases())('webhooks end to end on $name', ({ open }) => {
  let database: Database
  let handler: Handler
  let sender: WebhookSender
  let receiver: Receiver
  let kcore: ReturnType<typeof createKcoreStore>

  const call = async (
    method: string,
    path: string,
    options: { body?: unknown; token?: string } = {},
  ) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (options.token) headers.authorization = `Bearer ${options.token}`
    const response = await handler(
      new Request(`${ORIGIN}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      }),
    )
    const text = await response.text()
    return { status: response.status, body: text ? JSON.parse(text) : undefined }
  }

  /** Subscribes a receiver path to an API's events through its route; registers the secret. */
  const subscribe = async (
    base: string,
    token: string,
    path: string,
    events: readonly string[],
  ) => {
    const res = await call('POST', `${base}/webhooks`, {
      token,
      body: { url: receiver.url(path), events },
    })
    expect(res.status).toBe(201)
    expect(res.body.secret).toMatch(/^whsec_/)
    receiver.secret(path, res.body.secret)
    return res.body.id as string
  }

  /** The verified messages to `path`, after the sender had its chance to send `count`. */
  const messagesTo = async (path: string, count: number) => {
    await sender.flush()
    await receiver.until((r) => r.filter((m) => m.path === path).length >= count)
    // Room for a duplicate to show up (none should).
    await sender.flush()
    const got = receiver.received.filter((m) => m.path === path)
    expect(got.every((m) => m.verified)).toBe(true)
    return got
  }
  const ids = (got: Received[]) => got.map((m) => m.headers['webhook-id'])

  beforeAll(async () => {
    database = await open()
    kcore = createKcoreStore(database)
    const cal = createCalStore(database)
    await kcore.migrate()
    await cal.migrate()
    const webhooks = webhookSubscriptions(database, { events: WEBHOOK_EVENTS, allowPrivate: true })
    // Polls rarely: each test flushes, so what is sent is what the test asked for.
    sender = createWebhookSender(database, {
      allowPrivate: true,
      pollIntervalMs: 60_000,
      sources: [calWebhookSource(cal, { publicUrl: ORIGIN, timezone: 'Europe/Amsterdam' })],
    })
    // Started, so each finished send frees a slot for the next (two per receiver at a time).
    sender.start()
    receiver = await startReceiver()
    handler = createHandler({
      publicUrl: ORIGIN,
      explorer: false,
      kcore: { store: kcore, version: 'test', adminToken: ADMIN_TOKEN, webhooks },
      cal: { store: cal, tokens: [CAL_TOKEN], timezone: 'Europe/Amsterdam', webhooks },
    })
  })
  afterAll(async () => {
    await sender?.close()
    await receiver?.close()
    await handler?.close()
    await database?.close()
  })

  it('sends each calendar change once, as the API returns the record, never a password’s text', async () => {
    const base = '/cal/events/v1'
    await subscribe(base, CAL_TOKEN, '/cal', WEBHOOK_EVENTS.cal)
    const created = await call('POST', `${base}/events`, {
      token: CAL_TOKEN,
      body: {
        title: 'Open air',
        start_date: '2026-06-01 20:00:00',
        end_date: '2026-06-01 22:00:00',
        venue: { venue: 'Park stage' },
      },
    })
    expect(created.status).toBe(201)
    const id = created.body.id as number
    // The service's sender makes a write's messages right after it (notified by the write):
    // each then carries the record as that write left it.
    await sender.flush()
    // A write that fails (400) writes nothing.
    const bad = await call('POST', `${base}/events`, { token: CAL_TOKEN, body: { title: '' } })
    expect(bad.status).toBe(400)
    const updated = await call('POST', `${base}/events/${id}`, {
      token: CAL_TOKEN,
      body: { description: SECRET_TEXT, excerpt: SECRET_TEXT, password: 'sesame' },
    })
    expect(updated.status).toBe(200)
    await sender.flush()
    expect((await call('DELETE', `${base}/events/${id}`, { token: CAL_TOKEN })).status).toBe(200)

    const got = await messagesTo('/cal', 4)
    expect(new Set(ids(got)).size).toBe(got.length)
    const byType = new Map(got.map((m) => [m.message?.type, m.message?.data]))
    expect(got.map((m) => m.message?.type).sort()).toEqual(
      ['event.created', 'event.deleted', 'event.updated', 'venue.created'].sort(),
    )
    // As the API answered the create (same links, same zone).
    expect(byType.get('event.created')).toEqual(created.body)
    expect(byType.get('venue.created')).toMatchObject({
      id: created.body.venue.id,
      venue: 'Park stage',
      rest_url: `${ORIGIN}${base}/venues/${created.body.venue.id}`,
    })
    expect(byType.get('event.updated')).toMatchObject({
      id,
      password_protected: true,
      description: '',
      excerpt: '',
    })
    expect(byType.get('event.deleted')).toEqual({ id, type: 'event' })
    for (const m of got) expect(m.body).not.toContain(SECRET_TEXT)
  })

  it('sends snapshot.added, then snapshot.replaced, with the record the API serves', async () => {
    await subscribe('/api', ADMIN_TOKEN, '/kcore', WEBHOOK_EVENTS.kcore)
    await kcore.ingest(snapshot('2024-05-01', 2))
    const first = (await messagesTo('/kcore', 1)).map((m) => m.message)
    await kcore.ingest(snapshot('2024-05-01', 3))
    const both = (await messagesTo('/kcore', 2)).map((m) => m.message)
    const served = await call('GET', '/api/snapshots/2024-05-01?ip_version=ipv4')
    expect(served.status).toBe(200)
    expect(first).toEqual([
      expect.objectContaining({
        type: 'snapshot.added',
        data: expect.objectContaining({ ip_version: 'ipv4', max_shell_index: 2 }),
      }),
    ])
    expect(both).toHaveLength(2)
    expect(both[1]).toMatchObject({ type: 'snapshot.replaced' })
    expect(both[1]?.data).toEqual({ ip_version: 'ipv4', ...served.body })
  })

  it('answers 401 without the right token, on every webhook route of both APIs', async () => {
    for (const [base, wrong] of [
      ['/cal/events/v1', ADMIN_TOKEN],
      ['/api', CAL_TOKEN],
    ] as const) {
      for (const token of [undefined, wrong]) {
        for (const [method, path] of [
          ['GET', '/webhooks'],
          ['POST', '/webhooks'],
          ['DELETE', '/webhooks/x'],
          ['GET', '/webhooks/x/deliveries'],
        ] as const) {
          const res = await call(method, `${base}${path}`, {
            token,
            body: method === 'POST' ? {} : undefined,
          })
          expect(res.status, `${method} ${base}${path} ${token}`).toBe(401)
        }
      }
    }
  })

  it('answers 400 naming the field for a bad URL or event name', async () => {
    const cal = (body: unknown) =>
      call('POST', '/cal/events/v1/webhooks', { token: CAL_TOKEN, body })
    const badUrl = await cal({ url: 'ftp://example.org/hook', events: ['event.created'] })
    expect(badUrl.status).toBe(400)
    expect(Object.keys(badUrl.body.data.params)).toEqual(['url'])
    const badEvent = await cal({ url: receiver.url('/x'), events: ['snapshot.added'] })
    expect(badEvent.status).toBe(400)
    expect(Object.keys(badEvent.body.data.params)).toEqual(['events'])
    const k = await call('POST', '/api/webhooks', {
      token: ADMIN_TOKEN,
      body: { url: receiver.url('/y'), events: ['event.created'] },
    })
    expect(k.status).toBe(400)
    expect(k.body).toMatchObject({ error: 'invalid_parameter', details: [{ path: 'events' }] })
  })

  it('serves no k-core webhook routes without an admin token (404), and documents them when on', async () => {
    const open = createHandler({
      explorer: false,
      kcore: {
        store: kcore,
        version: 'test',
        webhooks: webhookSubscriptions(database, { events: WEBHOOK_EVENTS }),
      },
    })
    for (const [method, path] of [
      ['GET', '/api/webhooks'],
      ['POST', '/api/webhooks'],
      ['DELETE', '/api/webhooks/x'],
      ['GET', '/api/webhooks/x/deliveries'],
    ] as const) {
      const res = await open(new Request(`${ORIGIN}${path}`, { method }))
      expect(res.status, `${method} ${path}`).toBe(404)
    }
    const closedDoc = await (await open(new Request(`${ORIGIN}/api/openapi.json`))).json()
    expect(Object.keys(closedDoc.paths)).not.toContain('/api/webhooks')
    await open.close()
    const doc = (await call('GET', '/api/openapi.json')).body
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/webhooks',
        '/api/webhooks/{id}',
        '/api/webhooks/{id}/deliveries',
      ]),
    )
    const calDoc = (await call('GET', '/cal/events/v1/doc')).body
    expect(Object.keys(calDoc.paths)).toEqual(
      expect.arrayContaining(['/cal/events/v1/webhooks', '/cal/events/v1/webhooks/{id}']),
    )
  })
})
