import type { Database } from '@kcore/db'
import { propertyRuns, testDatabases } from '@kcore/db/testing'
import fc from 'fast-check'
import { sql } from 'kysely'
import { Webhook } from 'standardwebhooks'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  createWebhookSender,
  enqueueWebhook,
  enqueueWebhooks,
  migrateWebhooks,
  type WebhookApi,
  WebhookError,
  type WebhookSender,
  type WebhookSenderOptions,
  type WebhookSource,
  type WebhookTables,
  webhookRequest,
  webhookSubscriptions,
} from '../src/index.js'
import { type Answer, type Received, type Receiver, startReceiver } from './webhook-receiver.js'

const EVENTS = {
  cal: ['event.created', 'event.updated', 'event.deleted', 'venue.created'],
  kcore: ['snapshot.added', 'snapshot.replaced'],
}

describe.each(testDatabases())('webhooks on $name', ({ open }) => {
  let database: Database
  let receiver: Receiver | undefined
  let senders: WebhookSender[] = []
  /** The clock the senders see: real time plus what a test moved it by. */
  let offsetMs = 0
  const now = () => new Date(Date.now() + offsetMs)

  // One database for the file, emptied before each test: making and dropping a PostgreSQL
  // database per test was most of what the file cost there.
  beforeAll(async () => {
    database = await open()
    await migrateWebhooks(database.db)
  })
  afterAll(() => database.close())

  beforeEach(async () => {
    await sql`truncate webhook_cursor, webhook_delivery, webhook_message, webhook_subscription
      restart identity`.execute(database.db)
    offsetMs = 0
  })

  afterEach(async () => {
    await Promise.all(senders.map((s) => s.close()))
    senders = []
    await receiver?.close()
    receiver = undefined
  })

  const tables = () => database.db.withTables<WebhookTables>()
  const subscriptions = (options: { maxPerApi?: number; allowPrivate?: boolean } = {}) =>
    webhookSubscriptions(database, { events: EVENTS, allowPrivate: true, ...options })

  async function receive(answer?: (request: Received, n: number) => Answer) {
    receiver = await startReceiver(answer)
    return receiver
  }

  /** Subscribes `path` of the receiver and registers its secret for verification. */
  async function subscribe(path: string, events: string[], api: WebhookApi = 'cal') {
    const sub = await subscriptions().subscribe(api, { url: receiver!.url(path), events })
    receiver!.secret(path, sub.secret)
    return sub
  }

  function sender(options: WebhookSenderOptions = {}) {
    const s = createWebhookSender(database, { allowPrivate: true, now, ...options })
    senders.push(s)
    return s
  }

  /** One change's message, committed the way a store commits it. */
  const commit = (type: string, data: unknown, api: WebhookApi = 'cal') =>
    database.db.transaction().execute((trx) => enqueueWebhook(trx, api, type, data))

  const messages = () => tables().selectFrom('webhook_message').selectAll().orderBy('id').execute()

  it('delivers a committed change once, signed, as {type, timestamp, data}', async () => {
    await receive()
    const sub = await subscribe('/a', ['event.created'])
    const before = Date.now()
    // Key order as the API wrote it survives storage (json, not jsonb).
    expect(await commit('event.created', { zeta: 1, id: 7, alpha: 'x' })).toBe(1)
    await sender().flush()

    expect(receiver!.received).toHaveLength(1)
    const [request] = receiver!.received
    expect(request!.verified).toBe(true)
    expect(request!.headers['content-type']).toBe('application/json')
    expect(request!.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/)
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    expect(request!.body).toContain('"data":{"zeta":1,"id":7,"alpha":"x"}')
    expect(request!.message).toMatchObject({ type: 'event.created', data: { zeta: 1, id: 7 } })
    const timestamp = Date.parse(request!.message!.timestamp)
    expect(timestamp).toBeGreaterThanOrEqual(before - 1000)
    expect(timestamp).toBeLessThanOrEqual(Date.now())

    const [message] = await messages()
    expect(message).toMatchObject({ status: 'delivered', attempts: 1, lease: null })
    const log = await subscriptions().deliveries('cal', sub.id)
    expect(log).toEqual([
      expect.objectContaining({
        message_id: request!.headers['webhook-id'],
        type: 'event.created',
        status: 200,
        error: null,
        message_status: 'delivered',
      }),
    ])
    expect(log[0]!.attempted_utc).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
  })

  it('delivers any JSON data unchanged as the body data', async () => {
    await receive()
    await subscribe('/a', ['event.updated'])
    const s = sender()
    // Strings biased to what trips JSON storage: escapes, NUL, lone surrogates, non-ASCII.
    const edgy = fc.constantFrom('', '\u0000', '\ud800', '"\\', 'é\u2028', '{"a":1}', '🗓️')
    const data = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(fc.oneof(fc.string(), edgy), fc.oneof(fc.string(), edgy, fc.double())),
    )
    await fc.assert(
      fc.asyncProperty(data, async (value) => {
        const before = receiver!.received.length
        await commit('event.updated', value)
        await s.flush()
        const got = receiver!.received.slice(before)
        expect(got).toHaveLength(1)
        expect(got[0]!.verified).toBe(true)
        // What JSON can carry of it (-0 becomes 0, NaN becomes null).
        expect(got[0]!.message!.data).toEqual(JSON.parse(JSON.stringify(value ?? null)))
      }),
      { numRuns: propertyRuns(80, 15) },
    )
  })

  it('writes one message per subscription that asked for the type, on its API only', async () => {
    await receive()
    await subscribe('/created', ['event.created'])
    await subscribe('/both', ['event.created', 'event.updated'])
    await subscribe('/k', ['snapshot.added'], 'kcore')
    expect(await commit('event.created', { id: 1 })).toBe(2)
    expect(await commit('event.updated', { id: 1 })).toBe(1)
    expect(await commit('event.deleted', { id: 1 })).toBe(0)
    expect(await commit('snapshot.added', { id: 9 }, 'kcore')).toBe(1)
    await sender().flush()
    const seen = receiver!.received.map((r) => `${r.path} ${r.message?.type}`).sort()
    expect(seen).toEqual([
      '/both event.created',
      '/both event.updated',
      '/created event.created',
      '/k snapshot.added',
    ])
    expect(receiver!.received.every((r) => r.verified)).toBe(true)
  })

  it('enqueues several events in one statement, each to the subscriptions that asked', async () => {
    await receive()
    await subscribe('/a', ['event.created', 'venue.created'])
    await subscribe('/b', ['venue.created'])
    await subscribe('/k', ['snapshot.added'], 'kcore')
    const done = await database.db.transaction().execute((trx) =>
      enqueueWebhooks(trx, 'cal', [
        { type: 'event.created', data: { id: 1 } },
        { type: 'event.updated', data: { id: 1 } },
        { type: 'venue.created', data: { id: 3, type: 'venue' } },
      ]),
    )
    // event.created to /a; venue.created to /a and /b; event.updated to nobody.
    expect(done).toBe(3)
    expect((await messages()).map((m) => `${m.type} ${JSON.stringify(m.payload)}`).sort()).toEqual([
      'event.created {"id":1}',
      'venue.created {"id":3,"type":"venue"}',
      'venue.created {"id":3,"type":"venue"}',
    ])
    const none = await database.db.transaction().execute((trx) => enqueueWebhooks(trx, 'kcore', []))
    expect(none).toBe(0)
  })

  it('follows a source: its events become messages once, a failing source holds back none', async () => {
    await receive()
    await subscribe('/a', ['event.created'])
    // A source whose history is an array: position n is its n-th event.
    const history: string[] = ['old']
    const read: WebhookSource['read'] = async (_trx, after, limit, wanted) => {
      const events = history.slice(after, after + limit).map((title) => ({
        type: 'event.created',
        data: { title },
        at: new Date(Date.now() + 60_000),
      }))
      return {
        events: events.filter((e) => wanted.has(e.type)),
        through: after + events.length,
        more: after + limit < history.length,
      }
    }
    const broken: WebhookSource = {
      name: 'broken',
      api: 'cal',
      read: async () => {
        throw new Error('store not migrated')
      },
    }
    const errors: unknown[] = []
    const s = sender({
      sources: [broken, { name: 'array', api: 'cal', read }],
      onError: (e) => errors.push(e),
    })
    history.push('one', 'two')
    await commit('event.created', { title: 'direct' })
    await s.flush()
    await s.flush()
    const titles = receiver!.received.map((r) => (r.message?.data as { title?: string })?.title)
    expect(titles.sort()).toEqual(['direct', 'old', 'one', 'two'])
    expect(errors.map(String)).toContain('Error: store not migrated')
    const cursor = await tables().selectFrom('webhook_cursor').selectAll().execute()
    expect(cursor).toEqual([{ source: 'array', position: expect.anything() }])
    expect(Number(cursor[0]?.position)).toBe(3)
  })

  it('runs one pass for a burst of notifies, notifyDelayMs after the first', async () => {
    let reads = 0
    const counting: WebhookSource = {
      name: 'counting',
      api: 'cal',
      read: async (_trx, after) => {
        reads++
        return { events: [], through: after, more: false }
      },
    }
    const s = sender({ sources: [counting], pollIntervalMs: 60_000, notifyDelayMs: 100 })
    s.start()
    await s.flush()
    const before = reads
    for (let i = 0; i < 10; i++) s.notify()
    expect(reads).toBe(before)
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(reads).toBe(before + 1)
  })

  it('sends nothing for a transaction that rolls back', async () => {
    await receive()
    await subscribe('/a', ['event.created'])
    const rollback = new Error('the change failed')
    await expect(
      database.db.transaction().execute(async (trx) => {
        expect(await enqueueWebhook(trx, 'cal', 'event.created', { id: 1 })).toBe(1)
        throw rollback
      }),
    ).rejects.toBe(rollback)
    const s = sender()
    await s.flush()
    expect(await messages()).toEqual([])
    expect(receiver!.received).toEqual([])
    // A committed one after it goes through: the rollback was what kept the first one out.
    await commit('event.created', { id: 2 })
    await s.flush()
    expect(receiver!.received.map((r) => r.message?.data)).toEqual([{ id: 2 }])
  })

  it('delivers a commit no running sender saw (the process died right after it)', async () => {
    await receive()
    await subscribe('/a', ['event.created'])
    await commit('event.created', { id: 1 })
    // A sender started later (the restarted process) finds it on its own first pass.
    const s = sender({ pollIntervalMs: 20 })
    s.start()
    await receiver!.until((r) => r.length === 1)
    expect(receiver!.received[0]!.verified).toBe(true)
  })

  it('gives a new subscription no old messages, and a removed one no more', async () => {
    await receive()
    const old = await subscribe('/old', ['event.created'])
    await commit('event.created', { id: 1 })
    await subscribe('/new', ['event.created'])
    await subscriptions().remove('cal', old.id)
    await commit('event.created', { id: 2 })
    await sender().flush()
    expect(receiver!.received.map((r) => [r.path, r.message?.data])).toEqual([['/new', { id: 2 }]])
    // The removed subscription's undelivered message went with it.
    expect((await messages()).map((m) => m.payload)).toEqual([{ id: 2 }])
  })

  // The database's clock counts microseconds, a JavaScript Date milliseconds: each test makes
  // the two meet within one millisecond, where the sub-millisecond part used to decide.
  it('sends a message at once to a sender whose clock reads the same millisecond', async () => {
    await receive()
    await subscribe('/a', ['event.created'])
    for (let i = 1; i <= 5; i++) {
      await commit('event.created', { id: i })
      const [message] = await tables()
        .selectFrom('webhook_message')
        .select('created')
        .where('status', '=', 'pending')
        .execute()
      // The message's own instant, as a Date reads it: not one microsecond later.
      const sameMillisecond = new Date(message!.created)
      await sender({ now: () => sameMillisecond }).flush()
      expect(receiver!.received.map((r) => r.message?.data)).toContainEqual({ id: i })
    }
  })

  it('gives a subscription a change made in the same millisecond after it', async () => {
    await receive()
    for (let i = 1; i <= 5; i++) {
      const sub = await subscribe(`/s${i}`, ['event.created'])
      const { created } = await tables()
        .selectFrom('webhook_subscription')
        .select('created')
        .where('id', '=', sub.id)
        .executeTakeFirstOrThrow()
      const sameMillisecond = new Date(created)
      const written = await database.db
        .transaction()
        .execute((trx) =>
          enqueueWebhooks(trx, 'cal', [
            { type: 'event.created', data: { i }, at: sameMillisecond },
          ]),
        )
      // Every subscription so far was made by then: each gets the change.
      expect(written).toBe(i)
    }
  })

  it('retries a 500 on schedule and delivers once the receiver answers 200', async () => {
    await receive((_, n) => (n === 1 ? 500 : 200))
    const sub = await subscribe('/a', ['event.created'])
    await commit('event.created', { id: 1 })
    const s = sender()
    await s.flush()
    expect(receiver!.received).toHaveLength(1)
    const [pending] = await messages()
    expect(pending).toMatchObject({ status: 'pending', attempts: 1, lease: null })
    const [first] = await subscriptions().deliveries('cal', sub.id)
    expect(first).toMatchObject({ status: 500, error: 'HTTP 500', message_status: 'pending' })
    const attempted = await tables().selectFrom('webhook_delivery').select('attempted_at').execute()
    // The first retry waits 5 s after the failed attempt.
    expect(pending!.next_attempt_at.getTime() - attempted[0]!.attempted_at.getTime()).toBe(5000)

    // Not due yet: nothing is sent.
    offsetMs = 4000
    await s.flush()
    expect(receiver!.received).toHaveLength(1)
    offsetMs = 5100
    await s.flush()
    expect(receiver!.received).toHaveLength(2)
    expect(receiver!.received.every((r) => r.verified)).toBe(true)
    // The same message: same webhook-id, same body; only the signing time differs.
    const [a, b] = receiver!.received
    expect(b!.headers['webhook-id']).toBe(a!.headers['webhook-id'])
    expect(b!.body).toBe(a!.body)
    expect(await messages()).toEqual([
      expect.objectContaining({ status: 'delivered', attempts: 2 }),
    ])
    offsetMs = 3_600_000
    await s.flush()
    expect(receiver!.received).toHaveLength(2)
    const log = await subscriptions().deliveries('cal', sub.id)
    expect(log.map((d) => d.status)).toEqual([200, 500])
    expect(log.every((d) => d.message_status === 'delivered')).toBe(true)
  })

  it('marks a message failed when its schedule is spent', async () => {
    await receive(() => 503)
    const sub = await subscribe('/a', ['event.created'])
    await commit('event.created', { id: 1 })
    const s = sender({ retryDelaysMs: [1000, 2000] })
    for (const at of [0, 1000, 3000, 10_000, 100_000]) {
      offsetMs = at + 50
      await s.flush()
    }
    expect(receiver!.received).toHaveLength(3)
    const [message] = await messages()
    expect(message).toMatchObject({ status: 'failed', attempts: 3 })
    expect(message!.finished_at).not.toBeNull()
    const log = await subscriptions().deliveries('cal', sub.id, { limit: 2 })
    expect(log).toHaveLength(2)
    expect(log.every((d) => d.status === 503 && d.message_status === 'failed')).toBe(true)
  })

  it('prunes finished messages and their attempts after the retention, never pending ones', async () => {
    await receive((r) => (r.path === '/down' ? 500 : 200))
    await subscribe('/up', ['event.created'])
    await subscribe('/down', ['event.created'])
    await commit('event.created', { id: 1 })
    await sender({ retentionMs: 60_000, retryDelaysMs: [3_600_000] }).flush()
    expect(await messages()).toHaveLength(2)
    // A sender starting later prunes on its first pass: a minute on, the delivered one is gone.
    offsetMs = 61_000
    await sender({ retentionMs: 60_000, retryDelaysMs: [3_600_000] }).flush()
    const left = await messages()
    expect(left).toEqual([expect.objectContaining({ status: 'pending', attempts: 1 })])
    const log = await tables().selectFrom('webhook_delivery').select('message_id').execute()
    expect(log.map((d) => d.message_id)).toEqual([left[0]!.id])
  })

  it('signs so that a tampered body, a moved or an old timestamp fail verification', async () => {
    await receive()
    const sub = await subscribe('/a', ['event.created'])
    await commit('event.created', { id: 1, title: 'Launch' })
    await sender().flush()
    const [request] = receiver!.received
    expect(request!.verified).toBe(true)
    const webhook = new Webhook(sub.secret)
    expect(() => webhook.verify(request!.body, request!.headers)).not.toThrow()
    expect(() =>
      webhook.verify(request!.body.replace('Launch', 'Lunch'), request!.headers),
    ).toThrow(/signature/)
    // A replay that moves the timestamp forward keeps the old signature, which no longer fits.
    const moved = {
      ...request!.headers,
      'webhook-timestamp': String(Math.floor(Date.now() / 1000) + 1),
    }
    expect(() => webhook.verify(request!.body, moved)).toThrow(/signature/)
    // Another subscription's secret does not verify it.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(
        request!.body,
        request!.headers,
      ),
    ).toThrow(/signature/)
    // The same message signed ten minutes ago (a replay of an old capture) is refused as old.
    const [message] = await messages()
    const old = webhookRequest(
      {
        id: message!.id,
        type: message!.type,
        payloadJson: JSON.stringify(message!.payload),
        created: message!.created,
        secret: sub.secret,
      },
      new Date(Date.now() - 10 * 60_000),
    )
    expect(() => webhook.verify(old.body, old.headers)).toThrow(/too old/)
  })

  it('times out a receiver that never answers, while other receivers keep being served', async () => {
    await receive((r) => (r.path === '/dead' ? 'hang' : 200))
    await subscribe('/dead', ['event.created'])
    await subscribe('/live', ['event.created'])
    for (let id = 1; id <= 6; id++) await commit('event.created', { id })
    // The first retry a minute on: however slow the machine, each dead message is tried once
    // here (with the default 5 s, a loaded run saw a second attempt before the sixth first one).
    const s = sender({
      timeoutMs: 400,
      leaseMs: 5000,
      concurrency: 4,
      perSubscription: 2,
      retryDelaysMs: [60_000],
    })
    s.start()
    // Every live message arrives while the dead receiver still holds requests open.
    await receiver!.until((r) => r.filter((x) => x.path === '/live').length === 6)
    expect(receiver!.hanging).toBeGreaterThan(0)
    // Each dead message: one attempt, timed out, its retry scheduled.
    const dead = receiver!.received.find((r) => r.path === '/dead')!
    const deadSub = (await subscriptions().list('cal')).find((x) => x.url.endsWith('/dead'))!
    await waitFor(async () => {
      const log = await subscriptions().deliveries('cal', deadSub.id, { limit: 100 })
      return log.length === 6
    })
    const log = await subscriptions().deliveries('cal', deadSub.id, { limit: 100 })
    expect(log.every((d) => d.status === null && d.error === 'no answer within 400 ms')).toBe(true)
    expect(log.every((d) => d.duration_ms >= 350 && d.duration_ms < 5000)).toBe(true)
    const deadMessages = (await messages()).filter((m) => m.subscription_id === deadSub.id)
    expect(deadMessages.every((m) => m.status === 'pending' && m.attempts === 1)).toBe(true)
    expect(deadMessages.every((m) => m.next_attempt_at.getTime() > Date.now())).toBe(true)
    expect(dead.verified).toBe(true)
    expect((await messages()).filter((m) => m.status === 'delivered')).toHaveLength(6)
  })

  it('leaves a message a sender died holding to another once the lease ends', async () => {
    await receive()
    await subscribe('/a', ['event.created'])
    await commit('event.created', { id: 1 })
    // Sender A "dies" mid-send: its request never completes and it never records an outcome.
    let calledA = 0
    const a = sender({
      timeoutMs: 60_000,
      leaseMs: 90_000,
      fetch: () => {
        calledA++
        return new Promise<Response>(() => {})
      },
    })
    a.start()
    await waitFor(async () => calledA === 1)
    const [leased] = await messages()
    expect(leased!.lease).not.toBeNull()
    expect(leased!.locked_until!.getTime() - Date.now()).toBeGreaterThan(80_000)

    // Sender B, another process: nothing to do while A's lease holds …
    const clockB = { offsetMs: 0 }
    const b = createWebhookSender(database, {
      allowPrivate: true,
      now: () => new Date(Date.now() + clockB.offsetMs),
    })
    senders.push(b)
    await b.flush()
    expect(receiver!.received).toHaveLength(0)
    // … and sends it once the lease has run out.
    clockB.offsetMs = 91_000
    await b.flush()
    expect(receiver!.received).toHaveLength(1)
    expect(receiver!.received[0]!.verified).toBe(true)
    expect(await messages()).toEqual([
      expect.objectContaining({ status: 'delivered', attempts: 1 }),
    ])

    // A's late end changes nothing: the lease it held is no longer the message's.
    await a.close()
    expect(calledA).toBe(1)
    expect(await messages()).toEqual([
      expect.objectContaining({ status: 'delivered', attempts: 1, lease: null }),
    ])
    const log = await tables().selectFrom('webhook_delivery').selectAll().orderBy('id').execute()
    expect(log.map((d) => d.status ?? d.error)).toEqual([200, 'sender closed before an answer'])
  })

  it('releases what it was sending when closed, without counting an attempt', async () => {
    await receive(() => 'hang')
    await subscribe('/a', ['event.created'])
    await commit('event.created', { id: 1 })
    // A request timeout far past the test's own: a close that waited for it would time out.
    const s = sender({ timeoutMs: 3_600_000 })
    s.start()
    await receiver!.until((r) => r.length === 1)
    await s.close()
    expect(await messages()).toEqual([
      expect.objectContaining({ status: 'pending', attempts: 0, lease: null, locked_until: null }),
    ])
  })

  it('checks the address again at send time (DNS rebinding)', async () => {
    const fetched: string[] = []
    const subs = webhookSubscriptions(database, {
      events: EVENTS,
      lookup: async () => [{ address: '93.184.216.34' }],
    })
    const sub = await subs.subscribe('cal', {
      url: 'https://hooks.example/in',
      events: ['event.created'],
    })
    await commit('event.created', { id: 1 })
    const s = sender({
      allowPrivate: false,
      lookup: async () => [{ address: '127.0.0.1' }],
      fetch: async (url) => {
        fetched.push(String(url))
        return new Response('ok')
      },
    })
    await s.flush()
    expect(fetched).toEqual([])
    const [attempt] = await subs.deliveries('cal', sub.id)
    expect(attempt).toMatchObject({ status: null, message_status: 'pending' })
    expect(attempt!.error).toContain('non-public address (127.0.0.1)')
  })

  it('refuses a name that resolves elsewhere between the check and the connection', async () => {
    await receive()
    const port = new URL(receiver!.url('/')).port
    const subs = webhookSubscriptions(database, {
      events: EVENTS,
      lookup: async () => [{ address: '93.184.216.34' }],
    })
    const sub = await subs.subscribe('cal', {
      url: `http://rebind.example:${port}/in`,
      events: ['event.created'],
    })
    await commit('event.created', { id: 1 })
    // Public for the send-time check, this machine for the connection (a TTL-0 rebinding).
    let lookups = 0
    const s = sender({
      allowPrivate: false,
      lookup: async () => [{ address: lookups++ === 0 ? '93.184.216.34' : '127.0.0.1' }],
    })
    await s.flush()
    expect(lookups).toBeGreaterThan(1)
    expect(receiver!.received).toEqual([])
    const [attempt] = await subs.deliveries('cal', sub.id)
    expect(attempt).toMatchObject({ status: null, message_status: 'pending' })
    expect(attempt!.error).toContain('non-public address (127.0.0.1)')
  })

  it('does not follow redirects: a 3xx is not a delivery', async () => {
    await receive(() => 302)
    const sub = await subscribe('/a', ['event.created'])
    await commit('event.created', { id: 1 })
    await sender().flush()
    expect(receiver!.received).toHaveLength(1)
    expect((await subscriptions().deliveries('cal', sub.id))[0]).toMatchObject({ status: 302 })
  })

  describe('subscriptions', () => {
    async function refusal(fn: () => Promise<unknown>) {
      const error = await fn().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(WebhookError)
      return error as WebhookError
    }

    it('shows the secret once, lists without it, removes per API', async () => {
      const subs = subscriptions()
      const a = await subs.subscribe('cal', {
        url: 'https://a.example/h',
        events: ['event.created'],
      })
      expect(a.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
      expect(a.id).toMatch(/^wh_/)
      expect(a.created_utc).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
      const b = await subs.subscribe('kcore', {
        url: 'http://b.example/h',
        events: ['snapshot.added', 'snapshot.added'],
      })
      expect(b.events).toEqual(['snapshot.added'])
      expect(b.secret).not.toBe(a.secret)
      expect(await subs.list('cal')).toEqual([
        { id: a.id, url: a.url, events: a.events, created_utc: a.created_utc },
      ])
      expect(JSON.stringify(await subs.list('kcore'))).not.toContain('whsec_')
      expect((await refusal(() => subs.remove('kcore', a.id))).code).toBe('not_found')
      expect((await refusal(() => subs.deliveries('kcore', a.id))).code).toBe('not_found')
      await subs.remove('cal', a.id)
      expect(await subs.list('cal')).toEqual([])
      expect((await refusal(() => subs.remove('cal', a.id))).code).toBe('not_found')
    })

    it('refuses bad input naming the field, and stores nothing', async () => {
      const subs = subscriptions({ allowPrivate: false })
      const cases: [unknown, string, string][] = [
        [{ url: 'ftp://a.example/', events: ['event.created'] }, 'url', 'http or https'],
        [{ url: 'https://u:p@a.example/', events: ['event.created'] }, 'url', 'password'],
        [{ url: 42, events: ['event.created'] }, 'url', 'string'],
        [{ url: 'http://127.0.0.1:8080/', events: ['event.created'] }, 'url', 'non-public'],
        [{ url: 'http://[::1]/', events: ['event.created'] }, 'url', 'non-public'],
        [{ url: 'https://a.example/', events: ['event.exploded'] }, 'events', 'unknown event type'],
        [{ url: 'https://a.example/', events: ['snapshot.added'] }, 'events', 'unknown event type'],
        [{ url: 'https://a.example/', events: [] }, 'events', 'non-empty'],
        [{ url: 'https://a.example/', events: 'event.created' }, 'events', 'non-empty'],
      ]
      for (const [input, field, reason] of cases) {
        const error = await refusal(() =>
          subs.subscribe('cal', input as { url: string; events: string[] }),
        )
        expect(error, JSON.stringify(input)).toMatchObject({ code: 'invalid_input', field })
        expect(error.message).toContain(reason)
      }
      expect(await subs.list('cal')).toEqual([])
    })

    it('refuses the subscription past the cap, per API, even when they race', async () => {
      const subs = subscriptions({ maxPerApi: 3 })
      const attempts = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) =>
          subs.subscribe('cal', { url: `https://a.example/${i}`, events: ['event.created'] }),
        ),
      )
      expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(3)
      for (const a of attempts.filter((a) => a.status === 'rejected'))
        expect((a as PromiseRejectedResult).reason).toMatchObject({
          code: 'too_many_subscriptions',
          message: expect.stringContaining('3 webhook subscriptions'),
        })
      expect(await subs.list('cal')).toHaveLength(3)
      // The other API has its own cap.
      await subs.subscribe('kcore', { url: 'https://a.example/k', events: ['snapshot.added'] })
    })

    it('validates the deliveries limit', async () => {
      const subs = subscriptions()
      const a = await subs.subscribe('cal', {
        url: 'https://a.example/h',
        events: ['event.created'],
      })
      for (const limit of [0, -1, 101, 1.5, Number.NaN])
        expect(await refusal(() => subs.deliveries('cal', a.id, { limit }))).toMatchObject({
          code: 'invalid_input',
          field: 'limit',
        })
      expect(await subs.deliveries('cal', a.id, { limit: 100 })).toEqual([])
    })
  })
})

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 25))
  }
}
