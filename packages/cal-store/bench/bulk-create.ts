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

t = performance.now()
const page = await store.events.list({
  window: { start: new Date(start + 100 * 86_400_000) },
  limit: 50,
})
const listMs = performance.now() - t
console.log(
  JSON.stringify({
    engine: database.dialect,
    bulk_events: count,
    bulk_ms: Math.round(bulkMs),
    bulk_events_per_s: Math.round(1000 / perBulk),
    single_ms_per_event: Number(perSingle.toFixed(2)),
    bulk_speedup_vs_single: Number((perSingle / perBulk).toFixed(1)),
    list_page_ms: Number(listMs.toFixed(1)),
    list_total: page.total,
  }),
)
await database.close()
