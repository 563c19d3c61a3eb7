import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { createCalStore } from '@cal/store'
import { openDatabase } from '@kcore/db'
import { calWebhookSource, createHandler, WEBHOOK_EVENTS } from '@kcore/http-adapter'
import { createWebhookSender, webhookSubscriptions } from '@kcore/webhooks'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createReceiver, type WebhookMessage } from '../webhook-receiver.js'

// The receiver example, against a real calendar API and sender (in-memory PGlite): it takes
// what kcore signs, and refuses a tampered body, a wrong secret and a replayed old message.
const ORIGIN = 'https://events.example'
const TOKEN = 'receiver-example-token'

describe('examples/webhook-receiver.ts', () => {
  const database = openDatabase({})
  const cal = database.then((db) => createCalStore(db))
  const got: { message: WebhookMessage; id: string }[] = []
  let receiverUrl = ''
  let closeAll: () => Promise<void> = async () => {}
  let handler: ReturnType<typeof createHandler>
  let sender: ReturnType<typeof createWebhookSender>
  let secret = ''

  const post = (body: string, headers: Record<string, string>) =>
    fetch(receiverUrl, { method: 'POST', body, headers })

  beforeAll(async () => {
    const db = await database
    await (await cal).migrate()
    const webhooks = webhookSubscriptions(db, { events: WEBHOOK_EVENTS, allowPrivate: true })
    sender = createWebhookSender(db, {
      allowPrivate: true,
      pollIntervalMs: 60_000,
      sources: [calWebhookSource(await cal, { publicUrl: ORIGIN, timezone: 'UTC' })],
    })
    handler = createHandler({
      publicUrl: ORIGIN,
      explorer: false,
      cal: { store: await cal, tokens: [TOKEN], timezone: 'UTC', webhooks },
    })
    const call = (path: string, body: unknown) =>
      handler(
        new Request(`${ORIGIN}/cal/events/v1${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      )
    // Subscribe first (the secret comes back once), then start the receiver with it.
    const server = createReceiver('whsec_placeholder', () => {})
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
    server.close()
    const subscribed = await call('/webhooks', { url: receiverUrl, events: ['event.created'] })
    expect(subscribed.status).toBe(201)
    secret = (await subscribed.json()).secret
    const receiver = createReceiver(secret, (message, id) => void got.push({ message, id }))
    receiver.listen(Number(new URL(receiverUrl).port), '127.0.0.1')
    await once(receiver, 'listening')
    closeAll = async () => {
      await sender.close()
      receiver.close()
      await handler.close()
      await db.close()
    }
    const created = await call('/events', {
      title: 'Signed',
      start_date: '2031-05-01 10:00:00',
      end_date: '2031-05-01 11:00:00',
    })
    expect(created.status).toBe(201)
  })
  afterAll(() => closeAll())

  it('accepts what the sender signs, once, as the API renders the record', async () => {
    await sender.flush()
    expect(got).toHaveLength(1)
    expect(got[0]?.message.type).toBe('event.created')
    expect(got[0]?.message.data).toMatchObject({
      title: 'Signed',
      start_date: '2031-05-01 10:00:00',
    })
    expect(got[0]?.id).toMatch(/^msg_/)
  })

  it('refuses a tampered body, another secret and an old (replayed) timestamp', async () => {
    const now = new Date()
    const signed = (key: string, at: Date, body: string) => {
      const id = `msg_example_${at.getTime()}`
      return {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(key).sign(id, at, body),
      }
    }
    const body = JSON.stringify({ type: 'event.created', timestamp: now.toISOString(), data: {} })
    expect((await post(body, signed(secret, now, body))).status).toBe(204)
    expect((await post(`${body} `, signed(secret, now, body))).status).toBe(400)
    const other = `whsec_${Buffer.from('another secret, 32 bytes long!!!').toString('base64')}`
    expect((await post(body, signed(other, now, body))).status).toBe(400)
    const old = new Date(now.getTime() - 10 * 60_000)
    expect((await post(body, signed(secret, old, body))).status).toBe(400)
    expect(got).toHaveLength(2)
  })
})
