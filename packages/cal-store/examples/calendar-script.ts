// The README's scripting example, runnable:
//   npx tsx --conditions source packages/cal-store/examples/calendar-script.ts
import { openDatabase } from '@kcore/db'
import { createCalStore, formatLocalDateTime, seedDemoCalendar } from '../src/index.js'

const database = await openDatabase({}) // PGlite in memory; { url } for PostgreSQL
const store = createCalStore(database)
await store.migrate() // idempotent, safe from several processes
if (await store.isEmpty()) await seedDemoCalendar(store, { now: new Date() })

const hall = await store.venues.create({
  name: 'Town Hall',
  city: 'Delft',
  geo_lat: 52.01,
  geo_lng: 4.36,
})
const event = await store.events.create({
  title: 'Crème Brûlée Night', // slug: creme-brulee-night (-2, -3, … when taken)
  start: new Date('2027-03-06T19:00:00-05:00'),
  end: new Date('2027-03-06T22:00:00-05:00'),
  timezone: 'America/New_York',
  venue: hall.id,
  organizers: [{ name: 'Ann' }], // reused by name (case-insensitive) or created
  categories: ['Food'], // ids, or names (created when new)
  cost: ['0', '15$'], // kept as written
})
console.log(formatLocalDateTime(event.start, event.timezone)) // 2027-03-06 19:00:00

const { items, total } = await store.events.list({
  window: { start: new Date() }, // overlap: ends at/after start, starts at/before end
  near: { lat: 52, lng: 4.4, radius_km: 25 },
  search: 'CRÈME night', // every word, case-insensitive (accents count)
  limit: 10,
})
console.log(
  total,
  items.map((e) => e.slug),
) // 1 [ 'creme-brulee-night' ]
await store.events.update(event.id, { cost: null, tags: ['Sweet'] }) // partial; null clears
await store.events.trash(event.id)
await database.close()
