// Measures the bulk path against one-by-one creates, in one run, on PGlite (in memory) or on
// PostgreSQL when DATABASE_URL is set:
//   npx tsx --conditions source packages/cal-store/bench/bulk-create.ts [events]
import { testDatabases } from '@kcore/db/testing'
import { createCalStore, type EventInput } from '../src/index.js'

const count = Number(process.argv[2] ?? 20_000)
// A throwaway database: in-memory PGlite, or a fresh PostgreSQL database when DATABASE_URL is set.
const engine = testDatabases().at(-1)
if (!engine) throw new Error('no database engine')
const database = await engine.open()
const store = createCalStore(database)
await store.migrate()

const venue = await store.venues.create({ name: 'Bench Hall', geo_lat: 52, geo_lng: 4.9 })
const organizer = await store.organizers.create({ name: 'Bench Org' })
const category = await store.categories.create({ name: 'Bench' })
const start = Date.UTC(2026, 0, 1)
const input = (i: number): EventInput => ({
  title: `Bench event ${i % 1000}`,
  start: new Date(start + (i % 8760) * 3_600_000),
  end: new Date(start + (i % 8760) * 3_600_000 + 7_200_000),
  timezone: 'Europe/Amsterdam',
  venue: venue.id,
  organizers: [organizer.id],
  categories: [category.id],
  cost: '10$',
})

const single = 300
let t = performance.now()
for (let i = 0; i < single; i++) await store.events.create(input(i))
const perSingle = (performance.now() - t) / single

t = performance.now()
await store.events.createMany(Array.from({ length: count }, (_, i) => input(i)))
const bulkMs = performance.now() - t
const perBulk = bulkMs / count

// Typical list queries on the bulk-loaded table (median of 5 runs each).
const windowStart = new Date(start + 100 * 86_400_000)
async function median(fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now()
    await fn()
    times.push(performance.now() - t0)
  }
  return Number((times.sort((a, b) => a - b)[2] as number).toFixed(1))
}
const page = await store.events.list({ window: { start: windowStart }, limit: 50 })
const list_ms = {
  default_window: await median(() =>
    store.events.list({ window: { start: windowStart }, limit: 10 }),
  ),
  deep_page: await median(() =>
    store.events.list({ window: { start: windowStart }, limit: 50, offset: 5000 }),
  ),
  search: await median(() => store.events.list({ search: 'event 42', limit: 10 })),
  category: await median(() => store.events.list({ categories: [category.id], limit: 10 })),
  near: await median(() =>
    store.events.list({ near: { lat: 52, lng: 4.9, radius_km: 10 }, limit: 10 }),
  ),
  terms_of_page: await median(() => store.categories.getMany([category.id])),
}
console.log(
  JSON.stringify({
    engine: database.dialect,
    bulk_events: count,
    bulk_ms: Math.round(bulkMs),
    bulk_events_per_s: Math.round(1000 / perBulk),
    single_ms_per_event: Number(perSingle.toFixed(2)),
    bulk_speedup_vs_single: Number((perSingle / perBulk).toFixed(1)),
    list_total: page.total,
    list_ms,
  }),
)
await database.close()
