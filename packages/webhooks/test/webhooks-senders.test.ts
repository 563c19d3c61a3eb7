import type { Database } from '@kcore/db'
import { openPostgresDatabase } from '@kcore/db'
import { seedRun, testDatabases } from '@kcore/db/testing'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createWebhookSender,
  enqueueWebhook,
  migrateWebhooks,
  type WebhookSender,
  type WebhookTables,
  webhookSubscriptions,
} from '../src/index.js'
import { type Receiver, startReceiver } from './webhook-receiver.js'

const postgres = testDatabases().find((d) => d.name === 'postgres')

/** A small seeded generator (mulberry32): the seed printed repeats the run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

describe.skipIf(!postgres)('two senders on one PostgreSQL', () => {
  const opened: Database[] = []
  const senders: WebhookSender[] = []
  let receiver: Receiver | undefined

  afterEach(async () => {
    await Promise.all(senders.splice(0).map((s) => s.close()))
    await receiver?.close()
    // The second pool first: closing the first drops the database.
    for (const d of opened.splice(0).reverse()) await d.close()
  })

  it('sends each message exactly once while the receiver answers 200', async () => {
    const seed = process.env.WEBHOOK_SEED
      ? Number(process.env.WEBHOOK_SEED)
      : seedRun('two senders', 1)[0]!
    console.log(`two senders: seed ${seed} (WEBHOOK_SEED=${seed} repeats it)`)
    const random = seeded(seed)

    const first = await postgres!.open()
    opened.push(first)
    await migrateWebhooks(first.db)
    // The second process: its own pool on the same database.
    const { rows } = await first.db
      .selectNoFrom((eb) => eb.fn<string>('current_database', []).as('name'))
      .execute()
      .then((r) => ({ rows: r }))
    const url = new URL(process.env.DATABASE_URL!)
    url.pathname = `/${rows[0]!.name}`
    const second = openPostgresDatabase(url.toString())
    opened.push(second)

    // Answers 200 after 0–15 ms, so claims and sends overlap.
    receiver = await startReceiver(() => 200)
    const subs = webhookSubscriptions(first, {
      events: { cal: ['event.created', 'event.updated'] },
      allowPrivate: true,
    })
    const paths = ['/a', '/b', '/c', '/d']
    for (const path of paths) {
      const events = random() < 0.5 ? ['event.created'] : ['event.created', 'event.updated']
      const sub = await subs.subscribe('cal', { url: receiver.url(path), events })
      receiver.secret(path, sub.secret)
    }

    const sentBy = [0, 0]
    const delayed =
      (who: number): typeof fetch =>
      async (input, init) => {
        sentBy[who]!++
        await new Promise((r) => setTimeout(r, Math.floor(random() * 15)))
        return fetch(input, init)
      }
    for (const [who, database] of [first, second].entries()) {
      const sender = createWebhookSender(database, {
        allowPrivate: true,
        fetch: delayed(who),
        concurrency: 1 + Math.floor(random() * 6),
        perSubscription: 1 + Math.floor(random() * 3),
        pollIntervalMs: 5 + Math.floor(random() * 20),
      })
      senders.push(sender)
      sender.start()
    }

    // Writes in small committed transactions from both "processes", waking a random sender.
    let expected = 0
    const writes = 25 + Math.floor(random() * 35)
    for (let i = 0; i < writes; i++) {
      const database = random() < 0.5 ? first : second
      const type = random() < 0.5 ? 'event.created' : 'event.updated'
      const count = 1 + Math.floor(random() * 3)
      expected += await database.db.transaction().execute(async (trx) => {
        let n = 0
        for (let k = 0; k < count; k++) n += await enqueueWebhook(trx, 'cal', type, { i, k })
        return n
      })
      senders[Math.floor(random() * 2)]!.notify()
    }

    const db = first.db.withTables<WebhookTables>()
    const deadline = Date.now() + 60_000
    for (;;) {
      const { pending } = await db
        .selectFrom('webhook_message')
        .select((eb) => eb.fn.countAll<number>().as('pending'))
        .where('status', '<>', 'delivered')
        .executeTakeFirstOrThrow()
      if (Number(pending) === 0) break
      if (Date.now() > deadline) throw new Error(`seed ${seed}: ${pending} messages not delivered`)
      await new Promise((r) => setTimeout(r, 50))
    }
    console.log(`two senders: ${expected} messages, sent ${sentBy[0]} + ${sentBy[1]}`)

    const ids = receiver.received.map((r) => r.headers['webhook-id'])
    expect(
      receiver.received.every((r) => r.verified),
      `seed ${seed}`,
    ).toBe(true)
    expect(new Set(ids).size, `seed ${seed}`).toBe(ids.length)
    expect(ids.length, `seed ${seed}`).toBe(expected)
    const messages = await db.selectFrom('webhook_message').select(['id', 'attempts']).execute()
    expect(messages).toHaveLength(expected)
    expect(messages.every((m) => m.attempts === 1)).toBe(true)
    const deliveries = await db
      .selectFrom('webhook_delivery')
      .select(['message_id', 'status'])
      .execute()
    expect(deliveries.map((d) => d.message_id).sort()).toEqual(messages.map((m) => m.id).sort())
    expect(deliveries.every((d) => d.status === 200)).toBe(true)
    // Both took part: the exactly-once above is a claim about competing senders.
    expect(sentBy[0]! > 0 && sentBy[1]! > 0, `seed ${seed}: ${sentBy}`).toBe(true)
  })
})
