/**
 * `@cal/store/testing`: deterministic calendar data for tests and benchmarks.
 *
 * @example
 * const rnd = prng(42)
 * const { venues, categories } = await seedRecords(store, { venues: 12, organizers: 6, categories: 12, tags: 30 })
 * await store.events.createMany([{ title: `${rnd.pick(SAMPLE_WORDS)} night`, venue: rnd.pick(venues), ... }])
 */

export { type RecordCounts, type SeededRecords, seedRecords } from './seed-records.js'
export { type Prng, prng, SAMPLE_WORDS } from './seeded-random.js'
export { migrateCal } from './testing/migrate-cal.js'
