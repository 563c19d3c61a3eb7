import { sql } from 'kysely'
import type { Database } from './database.js'
import { openPostgresDatabase, type PostgresOptions } from './postgres-database.js'
import { openPooledPglite } from './testing/pglite-pool.js'
import { openPooledPostgres } from './testing/postgres-pool.js'
import type { Migrate } from './testing/pristine-state.js'

export { emptyCluster } from './testing/empty-cluster.js'
export type { Migrate } from './testing/pristine-state.js'
/**
 * A fresh, empty in-memory PGlite database from this process's pool (what the PGlite entry of
 * {@link testDatabases} opens): for a suite that runs on PGlite alone, without paying `initdb`.
 */
export { openPooledPglite as openTestPglite }

/** One database engine a test suite runs against. */
export interface TestDatabase {
  readonly name: 'pglite' | 'postgres'
  /**
   * A fresh database of its own: empty, or with `migrate` as `migrate` leaves an empty one
   * (one this process migrated before and brought back, checked against the state right after
   * the migration, or a new one migrated now). Closing it gives it back or drops it.
   */
  open(migrate?: Migrate): Promise<Database>
}

/**
 * The engines to test against: in-memory PGlite always, and real PostgreSQL when
 * `DATABASE_URL` is set. Each `open()` gives a database no other test is using, as empty as
 * a new one (PostgreSQL: a throwaway database; PGlite: an engine of its own): test files
 * running in parallel never see each other's tables. Closed databases are emptied and handed
 * out again by this process (`testing/`), since making one costs seconds.
 *
 * @example
 * describe.each(testDatabases())('store on $name', ({ open }) => { ... })
 */
export function testDatabases(
  env: Record<string, string | undefined> = process.env,
): TestDatabase[] {
  const list: TestDatabase[] = [{ name: 'pglite', open: openPooledPglite }]
  const url = env.DATABASE_URL
  if (url) list.push({ name: 'postgres', open: (migrate) => openPooledPostgres(url, migrate) })
  return list
}

/** The size of the suite running: `pnpm test`, `pnpm test:all` (CI) or `pnpm test:full`. */
export type TestLevel = 'default' | 'all' | 'full'

/** The level of this run, from `KCORE_TEST_LEVEL` (set by the root scripts). */
export function testLevel(env: Record<string, string | undefined> = process.env): TestLevel {
  const level = env.KCORE_TEST_LEVEL
  return level === 'all' || level === 'full' ? level : 'default'
}

/**
 * How many cases a property runs: `full` in `pnpm test:full` (KCORE_TEST_LEVEL=full), a quarter
 * of it (at least `min`) otherwise, so the default suite and CI stay within their time while the
 * full-size run keeps every case. The cases differ on every run (fast-check's seed rotates, and
 * a failure prints the seed that repeats it).
 */
export function propertyRuns(full: number, min = 10): number {
  return testLevel() === 'full' ? full : Math.max(min, Math.ceil(full / 4))
}

/**
 * The cases of a costly table a run takes: every one in `pnpm test:full`, else `count` of them
 * picked afresh each run (so every case keeps being run, over runs), printed with the seed
 * that picks them again: `KCORE_TEST_SEED=<seed>`.
 */
export function rotatingSample<T>(
  name: string,
  cases: readonly T[],
  count: number,
  env: Record<string, string | undefined> = process.env,
): T[] {
  if (testLevel(env) === 'full' || count >= cases.length) return [...cases]
  const seed = runSeed(env)
  // mulberry32: the same seed picks the same cases on every machine.
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
  const picked = new Set<number>()
  while (picked.size < count) picked.add(Math.floor(next() * cases.length))
  const chosen = [...picked].sort((a, b) => a - b)
  console.log(
    `${name}: KCORE_TEST_SEED=${seed} picks ${chosen.map((i) => JSON.stringify(cases[i])).join(', ')}`,
  )
  return chosen.map((i) => cases[i]!)
}

/**
 * The run's seed for samples and model runs: `KCORE_TEST_SEED` (CI pins it), else a fresh draw.
 * A setting that is no integer from 0 to 2^31 - 1 is refused: as a number it would be NaN, and
 * every run would quietly take the same cases.
 */
function runSeed(env: Record<string, string | undefined>): number {
  const text = env.KCORE_TEST_SEED
  if (text === undefined) return Math.floor(Math.random() * 2 ** 31)
  const seed = Number(text)
  if (!/^\d+$/.test(text.trim()) || seed >= 2 ** 31)
    throw new RangeError(
      `KCORE_TEST_SEED must be an integer from 0 to 2147483647, got ${JSON.stringify(text)}`,
    )
  return seed
}

/**
 * `count` consecutive seeds for a seeded model run (concurrent clients, mirrors, senders): from
 * `KCORE_TEST_SEED` when it is set (CI pins it, so its guard fails on defects, not draws), else
 * a fresh draw; printed with the setting that runs them again.
 */
export function seedRun(
  name: string,
  count: number,
  env: Record<string, string | undefined> = process.env,
): number[] {
  const base = runSeed(env)
  const first = 1 + (base % 100_000)
  const seeds = Array.from({ length: count }, (_, i) => first + i)
  console.log(`${name}: KCORE_TEST_SEED=${base} runs seeds ${seeds.join(', ')}`)
  return seeds
}

/**
 * A second, independent connection pool to the same database, as another process would have:
 * on PostgreSQL a new pool to the database `database` is connected to (found from
 * `DATABASE_URL`'s server), opened with `options`; PGlite has one connection per process, so
 * there it is the same database (its `close()` leaves it open).
 */
export async function secondConnection(
  database: Database,
  env: Record<string, string | undefined> = process.env,
  options: PostgresOptions = {},
): Promise<Database> {
  if (database.dialect === 'pglite') return { ...database, close: async () => {} }
  const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(
    database.db,
  )
  const url = new URL(env.DATABASE_URL ?? '')
  url.pathname = `/${rows[0]!.name}`
  return openPostgresDatabase(url.toString(), options)
}
