// Webhooks benchmark: does a receiver that never answers slow down any request? One process,
// in-memory PGlite (or a throwaway PostgreSQL database with DATABASE_URL), 2,000 seeded events,
// the handler called in-process, one request at a time:
//   1. without webhooks: N lists (GET /cal/events/v1/events?start_date=2026-06-01&per_page=50, a fixed window) and N creates (POST);
//   2. with webhooks: 5 subscriptions to every calendar event at a local receiver that accepts
//      connections and never answers, the sender running with the calendar as its source (it
//      makes the messages after each commit, notified after every write as the service does)
//      and its 10 s timeout;
// and prints p50/p99 of both, and the ratios (target: p99 within 10 %, i.e. ≤ 1.10).
//   pnpm bench:webhooks        (WEBHOOK_BENCH_RUNS, default 200 of each; WEBHOOK_NOTIFY_DELAY_MS
//   sets the sender's notifyDelayMs)
import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createCalStore, type EventInput } from '@cal/store'
import { openDatabase } from '@kcore/db'
import { calWebhookSource, createHandler, WEBHOOK_EVENTS } from '@kcore/http-adapter'
import { createWebhookSender, followSource, webhookSubscriptions } from '@kcore/webhooks'
import postgres from 'postgres'
import { quantile } from './quantile.js'

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

// One receiver: under /dead/ it takes every request and never answers (until the end of the
// run); under /ok/ it answers 204 at once, as a healthy receiver does.
const hanging = new Set<ServerResponse>()
let answered = 0
const receiver = createServer((req, res) => {
  if (req.url?.startsWith('/ok/')) {
    answered++
    req.resume()
    res.writeHead(204).end()
  } else hanging.add(res)
})
receiver.listen(0, '127.0.0.1')
await once(receiver, 'listening')
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`

const event = (i: number): EventInput => ({
  title: `Bench ${i}`,
  description: 'An evening of benchmarks.',
  start: new Date(Date.UTC(2026, 5, 1 + (i % 200), 18)),
  end: new Date(Date.UTC(2026, 5, 1 + (i % 200), 20)),
})

type Receiving = 'none' | 'ok' | 'dead'
type Samples = { lists: number[]; writes: number[] }

/**
 * One block of `runs` lists and creates through a fresh handler: without webhooks
 * (`none`), or with the calendar as the sender's source, 5 subscriptions to every calendar event at the healthy
 * (`ok`) or the never-answering (`dead`) receiver, and a running sender notified after each
 * write as the service does. Blocks of the three setups alternate (every order once), so a
 * change in the machine's load falls on all three alike.
 */
async function measure(receiving: Receiving, runs: number, into: Samples, round: number) {
  const withWebhooks = receiving !== 'none'
  const cal = createCalStore(database)
  await cal.migrate()
  const webhooks = webhookSubscriptions(database, { events: WEBHOOK_EVENTS, allowPrivate: true })
  const ids: string[] = []
  if (withWebhooks)
    for (let i = 0; i < 5; i++)
      ids.push(
        (
          await webhooks.subscribe('cal', {
            url: `${receiverUrl}/${receiving}/${round}-${i}`,
            events: [...WEBHOOK_EVENTS.cal],
          })
        ).id,
      )
  const sender = withWebhooks
    ? createWebhookSender(database, {
        allowPrivate: true,
        ...(process.env.WEBHOOK_NOTIFY_DELAY_MS && {
          notifyDelayMs: Number(process.env.WEBHOOK_NOTIFY_DELAY_MS),
        }),
        sources: [calWebhookSource(cal, { publicUrl: ORIGIN })],
        onError: (error) => console.error('sender:', error),
      })
    : undefined
  if (withWebhooks) {
    // The changes of the blocks before (made while no sender ran) are caught up first: this
    // block measures a sender that keeps up, not one working off another block's backlog.
    const source = calWebhookSource(cal, { publicUrl: ORIGIN })
    while (await followSource(database.db, source, 1000)) {}
  }
  sender?.start()
  const handler = createHandler({
    publicUrl: ORIGIN,
    explorer: false,
    cal: { store: cal, tokens: [TOKEN], webhooks: withWebhooks ? webhooks : undefined },
  })
  const time = async (request: () => Request) => {
    // Requests that come from sockets each start in their own turn of the event loop; calls in
    // a tight loop would not (on PGlite no I/O is awaited at all) and would starve the
    // sender's sockets, which a server never does.
    await new Promise((resolve) => setImmediate(resolve))
    const started = performance.now()
    const response = await handler(request())
    await response.arrayBuffer()
    if (!response.ok) throw new Error(`${receiving}: ${response.status}`)
    return performance.now() - started
  }
  for (let i = 0; i < runs; i++) {
    into.lists.push(
      await time(
        () =>
          new Request(
            `${ORIGIN}/cal/events/v1/events?start_date=2026-06-01&per_page=50&page=${1 + (i % 5)}`,
          ),
      ),
    )
    into.writes.push(
      await time(
        () =>
          new Request(`${ORIGIN}/cal/events/v1/events`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              title: `${receiving} ${i}`,
              start_date: '2026-07-01 18:00:00',
              end_date: '2026-07-01 20:00:00',
            }),
          }),
      ),
    )
    sender?.notify()
  }
  await sender?.close()
  await handler.close()
  // Ends the block's subscriptions (and their undelivered messages): the next blocks of the
  // other setups must not deliver this one's backlog on their time.
  for (const id of ids) await webhooks.remove('cal', id)
}

function stats(samples: Samples) {
  const lists = [...samples.lists].sort((a, b) => a - b)
  const writes = [...samples.writes].sort((a, b) => a - b)
  return {
    listP50: quantile(lists, 0.5),
    listP99: quantile(lists, 0.99),
    writeP50: quantile(writes, 0.5),
    writeP99: quantile(writes, 0.99),
  }
}

try {
  const seedStore = createCalStore(database)
  await seedStore.migrate()
  await seedStore.events.createMany(Array.from({ length: 2000 }, (_, i) => event(i)))
  // One round per order of the three setups: each follows each of the others equally often,
  // so what a block leaves behind (the healthy receiver's deliveries leave PostgreSQL
  // thousands of dead rows to vacuum) falls on all three alike, not always on the next one.
  const ORDERS: Receiving[][] = [
    ['none', 'ok', 'dead'],
    ['dead', 'none', 'ok'],
    ['ok', 'dead', 'none'],
    ['none', 'dead', 'ok'],
    ['ok', 'none', 'dead'],
    ['dead', 'ok', 'none'],
  ]
  const ROUNDS = ORDERS.length
  console.log(
    `${database.dialect}, 2,000 events; ${RUNS} lists and ${RUNS} creates per setup, in ${ROUNDS} alternating blocks`,
  )
  const samples: Record<Receiving, Samples> = {
    none: { lists: [], writes: [] },
    ok: { lists: [], writes: [] },
    dead: { lists: [], writes: [] },
  }
  // A warm-up of each, so none pays for first-use costs.
  for (const receiving of ['none', 'ok', 'dead'] as const)
    await measure(receiving, 20, { lists: [], writes: [] }, -1)
  for (const [round, order] of ORDERS.entries())
    for (const receiving of order)
      await measure(receiving, Math.ceil(RUNS / ROUNDS), samples[receiving], round)
  const off = stats(samples.none)
  const f = (n: number) => `${n.toFixed(1)} ms`
  const ratio = (a: number, b: number) => (a / b).toFixed(2)
  for (const [receiving, label] of [
    ['none', 'without webhooks'],
    ['ok', 'webhooks, receiver answering 204'],
    ['dead', 'webhooks, receiver never answering'],
  ] as const) {
    const s = stats(samples[receiving])
    console.log(
      `${label}: list p50 ${f(s.listP50)} p99 ${f(s.listP99)}; write p50 ${f(s.writeP50)} p99 ${f(s.writeP99)}` +
        (receiving === 'none'
          ? ''
          : `; vs without: list p99 ${ratio(s.listP99, off.listP99)}, write p99 ${ratio(s.writeP99, off.writeP99)} (p50 ${ratio(s.listP50, off.listP50)}, ${ratio(s.writeP50, off.writeP50)})`),
    )
  }
  const ok = stats(samples.ok)
  const dead = stats(samples.dead)
  console.log(
    `dead vs healthy receiver: list p99 ${ratio(dead.listP99, ok.listP99)}, write p99 ${ratio(dead.writeP99, ok.writeP99)}; ${answered} messages answered by the healthy receiver, ${hanging.size} requests held by the dead one; target p99 ≤ 1.10`,
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
