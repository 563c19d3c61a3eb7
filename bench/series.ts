// Recurring series benchmark on PostgreSQL (DATABASE_URL; a throwaway database is created and
// dropped), one run: 100,000 single events (as bench/cal.ts seeds them) plus 1,000 weekly and
// 100 daily infinite series, then, in-process and with no answer kept (memoBytes: false):
//   1. GET /cal/events/v1/events with a 2-year window + category + search, page 1 and page 500;
//   2. the same with the window reaching 9999-12-31;
//   3. writes: one scope=this edit (a new override), and a scope=all edit of a series that has
//      10 overrides (the change carried to them).
// p50/p90 over SERIES_BENCH_RUNS runs (default 40) after a warm-up. The machine's load
// (`uptime`) is printed with the figures.
//   pnpm bench:series
// SERIES_BENCH_DB=<name> keeps the seeded database under that name (seeded when it has no
// events, never dropped), so a change can be measured before and after on the same data:
// the list figures then follow the seed; the writes add one series to it per run.
import { execSync } from 'node:child_process'
import { type CalStore, createCalStore, type EventInput } from '@cal/store'
import { prng, SAMPLE_WORDS, seedRecords } from '@cal/store/testing'
import { openDatabase } from '@kcore/db'
import { createHandler } from '@kcore/http-adapter'
import postgres from 'postgres'
import { quantile } from './quantile.js'

const baseUrl = process.env.DATABASE_URL
if (!baseUrl) throw new Error('bench:series needs DATABASE_URL (a throwaway database is used)')
const EVENTS = Number(process.env.SERIES_BENCH_EVENTS ?? 100_000)
const WEEKLY = Number(process.env.SERIES_BENCH_WEEKLY ?? 1000)
const DAILY = Number(process.env.SERIES_BENCH_DAILY ?? 100)
const RUNS = Number(process.env.SERIES_BENCH_RUNS ?? 40)
const TOKEN = 'bench-series-token'
const NOW = new Date('2026-03-01T12:00:00Z')
const ZONES = ['UTC', 'Europe/Amsterdam', 'America/New_York', 'Asia/Tokyo', 'Europe/London']

const rnd = prng(29)
const word = () => rnd.pick(SAMPLE_WORDS)
/** Zipf-like: index 0 is the most popular. */
const skewed = <T>(list: readonly T[]) => list[Math.floor(list.length * rnd.next() ** 3)] as T

async function seed(store: CalStore) {
  const records = await seedRecords(store, {
    venues: 200,
    organizers: 100,
    categories: 50,
    tags: 100,
  })
  const { venues, organizers, categories } = records
  const tags = records.tags.map((t) => t.id)
  const fields = () => ({
    title: `${word()} ${word()} night`,
    description: `A ${word()} evening with ${word()} and ${word()} for everyone.`,
    excerpt: `${word()} event`,
    venue: rnd.chance(0.9) ? rnd.pick(venues) : null,
    organizers: [rnd.pick(organizers)],
    categories: [skewed(categories).id],
    tags: [...new Set([skewed(tags), rnd.pick(tags)])],
  })
  const from = Date.UTC(2025, 2, 1)
  const span = Date.UTC(2029, 2, 1) - from
  let t0 = performance.now()
  for (let done = 0; done < EVENTS; ) {
    const batch: EventInput[] = []
    for (let i = 0; i < 5000 && done + i < EVENTS; i++) {
      const start = from + Math.floor((rnd.next() * span) / 900_000) * 900_000
      batch.push({
        ...fields(),
        start: new Date(start),
        end: new Date(start + (1 + Math.floor(rnd.next() * 4)) * 3600_000),
        timezone: rnd.pick(ZONES),
      })
    }
    await store.events.createMany(batch)
    done += batch.length
  }
  const singles = (performance.now() - t0) / 1000
  t0 = performance.now()
  const series: number[] = []
  for (let i = 0; i < WEEKLY + DAILY; i++) {
    const day = Date.UTC(2025, 0, 1) + Math.floor(rnd.next() * 700) * 86_400_000
    const start = day + (8 + Math.floor(rnd.next() * 12)) * 3600_000
    const event = await store.events.create({
      ...fields(),
      start: new Date(start),
      end: new Date(start + 2 * 3600_000),
      timezone: 'UTC',
      recurrence: { rules: [i < WEEKLY ? 'FREQ=WEEKLY' : 'FREQ=DAILY'] },
    })
    series.push(event.id)
  }
  return {
    singles,
    series: (performance.now() - t0) / 1000,
    seriesIds: series,
    category: categories[0]?.slug ?? '',
  }
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits

const keptName = process.env.SERIES_BENCH_DB
const dbName = keptName ?? `series_bench_${Date.now().toString(36)}`
const admin = postgres(baseUrl, { max: 1, onnotice: () => {} })
const exists = await admin`select 1 from pg_database where datname = ${dbName}`
if (exists.length === 0) await admin.unsafe(`create database "${dbName}"`)
const url = new URL(baseUrl)
url.pathname = `/${dbName}`
const database = await openDatabase({ url: url.toString() })
try {
  const store = createCalStore(database)
  await store.migrate()
  const seeded = (await store.isEmpty())
    ? await seed(store)
    : {
        singles: 0,
        series: 0,
        category:
          (await store.categories.list({ orderby: 'id', limit: 1, hide_empty: false })).items[0]
            ?.slug ?? '',
      }
  const dbAdmin = postgres(url.toString(), { max: 1, onnotice: () => {} })
  await dbAdmin.unsafe('analyze')
  await dbAdmin.end()
  console.log(
    seeded.singles === 0
      ? `kept database ${dbName}`
      : `seeded ${EVENTS} single events in ${round(seeded.singles, 1)} s, ${WEEKLY} weekly + ${DAILY} daily infinite series in ${round(seeded.series, 1)} s`,
  )
  const handler = createHandler({
    cal: { store, tokens: [TOKEN], timezone: 'UTC', now: () => NOW },
  })
  const call = async (path: string, init?: RequestInit) => {
    const t0 = performance.now()
    const res = await handler(new Request(`http://bench.local/cal/events/v1${path}`, init))
    const body = await res.text()
    return { status: res.status, body, headers: res.headers, ms: performance.now() - t0 }
  }
  const list = `/events?categories=${seeded.category}&search=jazz`
  const cases: [string, string][] = [
    ['2-year window, page 1', `${list}&start_date=2026-03-01&end_date=2028-02-29`],
    ['2-year window, page 500', `${list}&start_date=2026-03-01&end_date=2028-02-29&page=500`],
    ['window to 9999, page 1', `${list}&start_date=2026-03-01&end_date=9999-12-31`],
    ['window to 9999, page 500', `${list}&start_date=2026-03-01&end_date=9999-12-31&page=500`],
  ]
  for (const [label, path] of cases) {
    const res = await call(path)
    if (res.status !== 200) throw new Error(`${label}: ${res.status} ${res.body.slice(0, 300)}`)
    console.log(`${label}: total ${res.headers.get('x-cal-total')}`)
  }
  const timings: Record<string, number[]> = {}
  for (let i = 0; i < 3; i++) for (const [, path] of cases) await call(path)
  for (let i = 0; i < RUNS; i++) {
    for (const [label, path] of cases) (timings[label] ??= []).push((await call(path)).ms)
  }

  // Writes: a series with 10 overrides, then scope=this edits (new overrides) and scope=all.
  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }
  const write = async (method: string, path: string, body: unknown) => {
    const res = await call(path, { method, headers: auth, body: JSON.stringify(body) })
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body}`)
    return res
  }
  const created = await write('POST', '/events', {
    title: 'Bench series',
    start_date: '2026-03-02 10:00:00',
    end_date: '2026-03-02 11:00:00',
    timezone: 'Europe/Berlin',
    recurrence: { rules: ['FREQ=WEEKLY'] },
  })
  const seriesId = JSON.parse(created.body).id
  const occurrences = JSON.parse(
    (
      await call(
        `/events?post_parent=${seriesId}&per_page=50&start_date=2026-03-01&end_date=2027-12-31`,
      )
    ).body,
  ).events as { id: number }[]
  for (let i = 0; i < 10; i++) {
    await write('PATCH', `/events/${occurrences[i]?.id}`, { title: `override ${i}` })
  }
  for (let i = 0; i < RUNS; i++) {
    const target = occurrences[10 + (i % 40)]?.id
    ;(timings['write scope=this (an override)'] ??= []).push(
      (await write('PATCH', `/events/${target}`, { title: `edit ${i}` })).ms,
    )
    ;(timings['write scope=all, 10+ overrides'] ??= []).push(
      (await write('PATCH', `/events/${seriesId}?scope=all`, { description: `all ${i}` })).ms,
    )
  }
  const rows: Record<string, Record<string, number>> = {}
  for (const [label, values] of Object.entries(timings)) {
    const sorted = [...values].sort((a, b) => a - b)
    rows[label] = {
      'p50 ms': round(quantile(sorted, 0.5)),
      'p90 ms': round(quantile(sorted, 0.9)),
      runs: sorted.length,
    }
  }
  console.log('\nin-process, no answer kept (memoBytes: false), per_page 10:')
  console.table(rows)
  console.log(`uptime: ${execSync('uptime').toString().trim()}`)
} finally {
  await database.close()
  if (!keptName) await admin.unsafe(`drop database "${dbName}" with (force)`).catch(() => {})
  await admin.end()
}
