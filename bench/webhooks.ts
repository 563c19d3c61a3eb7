// Webhooks benchmark: does a receiver that never answers slow down any request? One process,
// in-memory PGlite (or a throwaway PostgreSQL database with DATABASE_URL), 2,000 seeded events,
// the handler called in-process, one request at a time:
//   1. without webhooks: N lists (GET /cal/events/v1/events?per_page=50) and N creates (POST);
//   2. with webhooks: the store's outbox hook on, 5 subscriptions to every calendar event at a
//      local receiver that accepts connections and never answers, the sender running (and
//      notified after every write, as the service does) with its 10 s timeout;
// and prints p50/p99 of both, and the ratios (target: p99 within 10 %, i.e. ≤ 1.10).
//   pnpm bench:webhooks        (WEBHOOK_BENCH_RUNS, default 200 of each)
import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createCalStore, type EventInput } from '@cal/store'
import { openDatabase } from '@kcore/db'
import { createWebhookSender, webhookSubscriptions } from '@kcore/db/webhooks'
import { calWebhookChanges, createHandler, WEBHOOK_EVENTS } from '@kcore/http-adapter'
import postgres from 'postgres'

const RUNS = Number(process.env.WEBHOOK_BENCH_RUNS ?? 200)
const TOKEN = 'bench-webhooks-token'
const ORIGIN = 'http://bench.test'

const baseUrl = process.env.DATABASE_URL
const dbName = `kcore_bench_webhooks_${process.pid}`
const admin = baseUrl ? postgres(baseUrl, { max: 1, onnotice: () => {} }) : undefined
let url: string | undefined
if (baseUrl && admin) {
  await admin.unsafe(`create database "${dbName}"`)
  const u = new URL(baseUrl)
  u.pathname = `/${dbName}`
  url = u.toString()
}
const database = await openDatabase(url ? { url } : {})

// A receiver that takes every request and never answers (until the end of the run).
const hanging = new Set<ServerResponse>()
const receiver = createServer((_req, res) => void hanging.add(res))
receiver.listen(0, '127.0.0.1')
await once(receiver, 'listening')
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`

const event = (i: number): EventInput => ({
  title: `Bench ${i}`,
  description: 'An evening of benchmarks.',
  start: new Date(Date.UTC(2026, 5, 1 + (i % 200), 18)),
  end: new Date(Date.UTC(2026, 5, 1 + (i % 200), 20)),
})

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN

async function measure(label: string, withWebhooks: boolean) {
  const cal = createCalStore(database, {
    onChanges: withWebhooks ? calWebhookChanges({ publicUrl: ORIGIN }) : undefined,
  })
  await cal.migrate()
  const webhooks = webhookSubscriptions(database, { events: WEBHOOK_EVENTS, allowPrivate: true })
  const sender = withWebhooks
    ? createWebhookSender(database, {
        allowPrivate: true,
        onError: (error) => console.error('sender:', error),
      })
    : undefined
  if (withWebhooks) {
    for (let i = 0; i < 5; i++)
      await webhooks.subscribe('cal', {
        url: `${receiverUrl}/${i}`,
        events: [...WEBHOOK_EVENTS.cal],
      })
    sender?.start()
  }
  const handler = createHandler({
    publicUrl: ORIGIN,
    explorer: false,
    cal: { store: cal, tokens: [TOKEN], webhooks: withWebhooks ? webhooks : undefined },
  })
  const time = async (request: () => Request) => {
    const started = performance.now()
    const response = await handler(request())
    await response.arrayBuffer()
    if (!response.ok) throw new Error(`${label}: ${response.status}`)
    return performance.now() - started
  }
  const lists: number[] = []
  const writes: number[] = []
  for (let i = 0; i < RUNS; i++) {
    lists.push(
      await time(
        () => new Request(`${ORIGIN}/cal/events/v1/events?per_page=50&page=${1 + (i % 5)}`),
      ),
    )
    writes.push(
      await time(
        () =>
          new Request(`${ORIGIN}/cal/events/v1/events`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              title: `${label} ${i}`,
              start_date: '2026-07-01 18:00:00',
              end_date: '2026-07-01 20:00:00',
            }),
          }),
      ),
    )
    sender?.notify()
  }
  // The sender's requests reach the receiver outside the measured requests: give them a moment.
  if (withWebhooks) await new Promise((resolve) => setTimeout(resolve, 1000))
  const queued = withWebhooks
    ? Number(
        (
          await database.db
            .withTables<{ webhook_message: { status: string } }>()
            .selectFrom('webhook_message')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('status', '=', 'pending')
            .executeTakeFirstOrThrow()
        ).n,
      )
    : 0
  await sender?.close()
  await handler.close()
  lists.sort((a, b) => a - b)
  writes.sort((a, b) => a - b)
  const stats = {
    listP50: percentile(lists, 50),
    listP99: percentile(lists, 99),
    writeP50: percentile(writes, 50),
    writeP99: percentile(writes, 99),
  }
  const f = (n: number) => `${n.toFixed(1)} ms`
  console.log(
    `${label}: list p50 ${f(stats.listP50)} p99 ${f(stats.listP99)}; write p50 ${f(stats.writeP50)} p99 ${f(stats.writeP99)}` +
      (withWebhooks ? `; ${queued} messages pending, ${hanging.size} requests hanging` : ''),
  )
  return stats
}

try {
  const seedStore = createCalStore(database)
  await seedStore.migrate()
  await seedStore.events.createMany(Array.from({ length: 2000 }, (_, i) => event(i)))
  console.log(`${database.dialect}, 2,000 events, ${RUNS} lists and ${RUNS} creates per setup`)
  // A warm-up of each, so neither pays for first-use costs.
  await measure('warm-up', false)
  const off = await measure('without webhooks', false)
  const on = await measure('with a dead receiver', true)
  const ratio = (a: number, b: number) => (a / b).toFixed(2)
  console.log(
    `ratios (with / without): list p99 ${ratio(on.listP99, off.listP99)}, write p99 ${ratio(on.writeP99, off.writeP99)}` +
      ` (p50: ${ratio(on.listP50, off.listP50)}, ${ratio(on.writeP50, off.writeP50)}); target p99 ≤ 1.10`,
  )
} finally {
  for (const res of hanging) res.destroy()
  receiver.closeAllConnections()
  receiver.close()
  await database.close()
  if (admin) {
    await admin.unsafe(`drop database if exists "${dbName}" with (force)`)
    await admin.end()
  }
}
