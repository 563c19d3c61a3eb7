// What one change log saves on every event write (migration 0015 dropped 0011's log): the same
// writes, interleaved round by round, on a database migrated to the latest schema and on one
// migrated up to 0014 (both logs written by every event statement), in one run. PGlite (in
// memory), or PostgreSQL when DATABASE_URL is set:
//   npx tsx --conditions source packages/cal-store/bench/change-log-cost.ts [writes]
import { loadavg } from 'node:os'
import { testDatabases } from '@kcore/db/testing'
import { Migrator } from 'kysely'
import { quantile } from '../../../bench/quantile.js'
import { type CalStore, createCalStore, type EventInput } from '../src/index.js'
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE, migrationProvider } from '../src/migrations.js'

const writes = Number(process.argv[2] ?? 600)
const engine = testDatabases().at(-1)
if (!engine) throw new Error('no database engine')

async function side(to?: string): Promise<{ store: CalStore; close: () => Promise<void> }> {
  const database = await engine!.open()
  const store = createCalStore(database)
  if (to) {
    const { error } = await new Migrator({
      db: database.db,
      provider: migrationProvider,
      migrationTableName: MIGRATION_TABLE,
      migrationLockTableName: MIGRATION_LOCK_TABLE,
    }).migrateTo(to)
    if (error) throw error
  } else await store.migrate()
  return { store, close: () => database.close() }
}

const sides = { one: await side(), two: await side('0014_recurrence') }
const start = Date.UTC(2026, 0, 1)
const input = (i: number): EventInput => ({
  title: `Bench event ${i}`,
  start: new Date(start + (i % 8760) * 3_600_000),
  end: new Date(start + (i % 8760) * 3_600_000 + 7_200_000),
  timezone: 'Europe/Amsterdam',
})
const ids: Record<keyof typeof sides, number[]> = { one: [], two: [] }
const times: Record<keyof typeof sides, number[]> = { one: [], two: [] }
// Warm-up: 2,000 events each, then timed creates and updates in alternating order.
for (const [name, s] of Object.entries(sides) as [keyof typeof sides, (typeof sides)['one']][]) {
  const made = await s.store.events.createMany(Array.from({ length: 2000 }, (_, i) => input(i)))
  ids[name] = made
}
for (let i = 0; i < writes; i++) {
  const order = i % 2 ? (['one', 'two'] as const) : (['two', 'one'] as const)
  for (const name of order) {
    const { store } = sides[name]
    const t = performance.now()
    if (i % 3 === 0) await store.events.create(input(10_000 + i))
    else await store.events.update(ids[name][i % 2000] as number, { title: `Updated ${i}` })
    times[name].push(performance.now() - t)
  }
}
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return { median: quantile(s, 0.5), p99: quantile(s, 0.99) }
}
const one = stats(times.one)
const two = stats(times.two)
console.log(
  JSON.stringify(
    {
      engine: engine.name,
      writes,
      load_average: loadavg().map((l) => Number(l.toFixed(2))),
      one_log_ms: { median: +one.median.toFixed(2), p99: +one.p99.toFixed(2) },
      two_logs_ms: { median: +two.median.toFixed(2), p99: +two.p99.toFixed(2) },
      ratio_one_over_two: {
        median: +(one.median / two.median).toFixed(3),
        p99: +(one.p99 / two.p99).toFixed(3),
      },
    },
    null,
    2,
  ),
)
await sides.one.close()
await sides.two.close()
