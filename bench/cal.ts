// Calendar API benchmark on PostgreSQL (DATABASE_URL; a throwaway database is created and
// dropped): 100,000 events (500 venues, 300 organizers, 50 categories with a skewed
// popularity, 200 tags) seeded through the store's bulk path, then
//   1. in-process GET /cal/events/v1/events with a date window + category + search, page 1 and
//      page 500, with and without the store's list cache: p50/p90 over CAL_BENCH_RUNS runs
//      (default 60) after a warm-up;
//   2. 1,000 events created one by one through the API (POST, token): time and req/s;
//   3. the list request under autocannon (64 connections, 10 s) via @hono/node-server, with and
//      without the list cache, and with the cache while 10 events/s are created in the
//      background through the API (every write empties the cache: the write-while-reading case).
//   pnpm bench:cal
import type { AddressInfo } from 'node:net'
import { type CalStore, createCalStore, type EventInput } from '@cal/store'
import { prng, SAMPLE_WORDS, seedRecords } from '@cal/store/testing'
import { createAdaptorServer } from '@hono/node-server'
import { openDatabase } from '@kcore/db'
import { createHandler } from '@kcore/http-adapter'
import autocannon from 'autocannon'
import postgres from 'postgres'
import { quantile } from './quantile.js'

const baseUrl = process.env.DATABASE_URL
if (!baseUrl)
  throw new Error(
    'bench:cal needs DATABASE_URL (a PostgreSQL server; a throwaway database is used)',
  )
const EVENTS = Number(process.env.CAL_BENCH_EVENTS ?? 100_000)
const RUNS = Number(process.env.CAL_BENCH_RUNS ?? 60)
const CREATES = Number(process.env.CAL_BENCH_CREATES ?? 1000)
const WRITES_PER_SECOND = 10
/** Keep the throwaway database (for EXPLAIN) instead of dropping it. */
const KEEP = process.env.CAL_BENCH_KEEP === '1'
const TOKEN = 'bench-cal-token'
const NOW = new Date('2026-03-01T12:00:00Z')
const ZONES = ['UTC', 'Europe/Amsterdam', 'America/New_York', 'Asia/Tokyo', 'Europe/London']

const rnd = prng(42)
const word = () => rnd.pick(SAMPLE_WORDS)
/** Zipf-like: index 0 is the most popular. */
const skewed = <T>(list: readonly T[]) => list[Math.floor(list.length * rnd.next() ** 3)] as T

async function seed(store: CalStore) {
  const started = performance.now()
  const records = await seedRecords(
    store,
    { venues: 500, organizers: 300, categories: 50, tags: 200 },
    (i) => ({
      city: `City ${i % 40}`,
      geo_lat: 35 + rnd.next() * 25,
      geo_lng: -10 + rnd.next() * 40,
    }),
  )
  const { venues, organizers, categories } = records
  const tags = records.tags.map((t) => t.id)
  const from = Date.UTC(2025, 2, 1)
  const span = Date.UTC(2029, 2, 1) - from
  for (let done = 0; done < EVENTS; ) {
    const batch: EventInput[] = []
    for (let i = 0; i < 5000 && done + i < EVENTS; i++) {
      const start = from + Math.floor((rnd.next() * span) / 900_000) * 900_000
      batch.push({
        title: `${word()} ${word()} night ${done + i}`,
        description: `A ${word()} evening with ${word()} and ${word()} for everyone.`,
        excerpt: `${word()} event`,
        start: new Date(start),
        end: new Date(start + (1 + Math.floor(rnd.next() * 4)) * 3600_000),
        timezone: rnd.pick(ZONES),
        status: rnd.chance(0.95) ? 'publish' : 'draft',
        featured: rnd.chance(0.05),
        cost: rnd.chance(0.5) ? `${Math.floor(rnd.next() * 50)}$` : null,
        venue: rnd.chance(0.9) ? rnd.pick(venues) : null,
        organizers: [rnd.pick(organizers)],
        categories: [
          ...new Set([
            skewed(categories).id,
            ...(rnd.chance(0.3) ? [rnd.pick(categories).id] : []),
          ]),
        ],
        tags: [...new Set([skewed(tags), rnd.pick(tags)])],
      })
    }
    await store.events.createMany(batch)
    done += batch.length
  }
  return {
    seconds: (performance.now() - started) / 1000,
    category: categories[0]?.slug ?? '',
    categoryName: categories[0]?.name ?? '',
  }
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits

const dbName = `cal_bench_${Date.now().toString(36)}`
const admin = postgres(baseUrl, { max: 1, onnotice: () => {} })
await admin.unsafe(`create database "${dbName}"`)
const url = new URL(baseUrl)
url.pathname = `/${dbName}`
const database = await openDatabase({ url: url.toString() })
try {
  const store = createCalStore(database)
  await store.migrate()
  const seeded = await seed(store)
  await admin.unsafe(`vacuum analyze`).catch(() => {})
  const dbAdmin = postgres(url.toString(), { max: 1, onnotice: () => {} })
  await dbAdmin.unsafe('analyze')
  await dbAdmin.end()
  console.log(
    `seeded ${EVENTS} events in ${round(seeded.seconds, 1)} s (createMany, 5,000 per call)`,
  )

  const handler = createHandler({
    cal: { store, tokens: [TOKEN], timezone: 'UTC', now: () => NOW },
  })
  const listPath = `/cal/events/v1/events?start_date=2026-03-01&end_date=2028-02-29&categories=${seeded.category}&search=jazz`
  const call = async (path: string, init?: RequestInit) => {
    const res = await handler(new Request(`http://bench.local${path}`, init))
    const body = await res.text()
    return { status: res.status, body, headers: res.headers }
  }
  const first = await call(listPath)
  if (first.status !== 200) throw new Error(`list failed: ${first.status} ${first.body}`)
  const total = Number(first.headers.get('x-cal-total'))
  console.log(
    `list query matches ${total} events (${first.headers.get('x-cal-totalpages')} pages of 10)`,
  )
  if (total < 4991) throw new Error('the list query must reach page 500; raise CAL_BENCH_EVENTS')

  // The same queries through an API that keeps no answers (memoBytes: false): what every
  // first request (and every request after a write) costs.
  const uncached = createHandler({
    cal: {
      store: createCalStore(database),
      memoBytes: false,
      tokens: [TOKEN],
      timezone: 'UTC',
      now: () => NOW,
    },
  })
  const timed = async (h: typeof handler, path: string) => {
    const t0 = performance.now()
    const res = await h(new Request(`http://bench.local${path}`))
    await res.text()
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`)
    return performance.now() - t0
  }
  const cases = [
    ['page 1, no cache', uncached, listPath],
    ['page 500, no cache', uncached, `${listPath}&page=500`],
    ['page 1, cached', handler, listPath],
    ['page 500, cached', handler, `${listPath}&page=500`],
  ] as const
  const timings: Record<string, number[]> = {}
  for (let i = 0; i < 5; i++) for (const [, h, path] of cases) await timed(h, path)
  for (let i = 0; i < RUNS; i++) {
    // Interleaved so drift affects every case alike.
    for (const [label, h, path] of cases) (timings[label] ??= []).push(await timed(h, path))
  }
  const rows: Record<string, Record<string, number>> = {}
  for (const [label, list] of Object.entries(timings)) {
    const sorted = [...list].sort((a, b) => a - b)
    rows[label] = {
      'p50 ms': round(quantile(sorted, 0.5)),
      'p90 ms': round(quantile(sorted, 0.9)),
      runs: sorted.length,
    }
  }
  console.log('\nin-process GET events (window + category + search), per_page 10:')
  console.table(rows)

  const fmt = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ')
  const createStarted = performance.now()
  for (let i = 0; i < CREATES; i++) {
    const start = new Date(Date.UTC(2026, 5, 1) + i * 3_600_000)
    const res = await call('/cal/events/v1/events', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: `Bench created ${i}`,
        description: 'created through the API',
        start_date: fmt(start),
        end_date: fmt(new Date(start.getTime() + 3_600_000)),
        timezone: rnd.pick(ZONES),
        categories: [seeded.categoryName, `New category ${i % 5}`],
        tags: ['Tag 1'],
        cost: '10$',
      }),
    })
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.body}`)
  }
  const createSeconds = (performance.now() - createStarted) / 1000
  console.log(
    `\ncreated ${CREATES} events through POST /events in ${round(createSeconds, 2)} s = ${round(CREATES / createSeconds, 0)} req/s (sequential, in-process)`,
  )

  // Count requests still running: autocannon hangs up with requests queued on the pool, and
  // closing the database under them never returns (kysely-postgres-js), so drain first.
  /** Creates WRITES_PER_SECOND events through the API until stopped; resolves to the count. */
  const backgroundWrites = () => {
    let stop = false
    let written = 0
    const done = (async () => {
      for (let i = 0; !stop; i++) {
        const tick = performance.now()
        const start = new Date(Date.UTC(2026, 8, 1) + i * 3_600_000)
        const res = await call('/cal/events/v1/events', {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            title: `Written while reading ${i} jazz`,
            start_date: fmt(start),
            end_date: fmt(new Date(start.getTime() + 3_600_000)),
            categories: [seeded.categoryName],
          }),
        })
        if (res.status !== 201) throw new Error(`background create: ${res.status} ${res.body}`)
        written++
        const wait = 1000 / WRITES_PER_SECOND - (performance.now() - tick)
        if (wait > 0) await new Promise((r) => setTimeout(r, wait))
      }
      return written
    })()
    return {
      stop: () => {
        stop = true
        return done
      },
    }
  }

  for (const [label, h, writing] of [
    ['cached', handler, false],
    ['no cache', uncached, false],
    [`cached, ${WRITES_PER_SECOND} writes/s in the background`, handler, true],
    [`no cache, ${WRITES_PER_SECOND} writes/s in the background`, uncached, true],
  ] as const) {
    let inflight = 0
    const server = createAdaptorServer({
      fetch: async (request: Request) => {
        inflight++
        try {
          return await h(request)
        } finally {
          inflight--
        }
      },
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as AddressInfo).port
    const writer = writing ? backgroundWrites() : undefined
    try {
      const result = await autocannon({
        url: `http://127.0.0.1:${port}${listPath}`,
        connections: 64,
        duration: 10,
      })
      const written = await writer?.stop()
      console.log(
        `\nautocannon, 64 connections, 10 s, list page 1 over HTTP (@hono/node-server), ${label}:`,
      )
      console.table({
        'requests/s (mean)': result.requests.average,
        'latency p50 ms': result.latency.p50,
        'latency p99 ms': result.latency.p99,
        'non-2xx + errors': result.non2xx + result.errors + result.timeouts,
        ...(written === undefined ? {} : { 'events written meanwhile': written }),
      })
    } finally {
      // autocannon leaves keep-alive sockets open; drop them so close() returns.
      ;(server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.()
      await new Promise((r) => server.close(r))
      while (inflight > 0) await new Promise((r) => setTimeout(r, 50))
    }
  }
} finally {
  await database.close()
  if (KEEP) console.log(`kept database ${dbName}`)
  else await admin.unsafe(`drop database if exists "${dbName}" with (force)`)
  await admin.end()
}
