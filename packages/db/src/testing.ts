import { readFile, rename, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'kysely'
import postgres from 'postgres'
import type { Database } from './database.js'
import { openSupervised } from './pglite-database.js'
import type { EngineEvents, PgliteEngine } from './pglite-engine.js'
import { startWorkerEngine } from './pglite-worker-engine.js'
import { openPostgresDatabase, type PostgresOptions } from './postgres-database.js'

/** One database engine a test suite runs against. */
export interface TestDatabase {
  readonly name: 'pglite' | 'postgres'
  /** A fresh, empty database; closing it also drops it. */
  open(): Promise<Database>
}

/**
 * The engines to test against: in-memory PGlite always, and real PostgreSQL when
 * `DATABASE_URL` is set. Each `open()` on PostgreSQL creates a throwaway database, so test
 * files running in parallel never see each other's tables.
 *
 * @example
 * describe.each(testDatabases())('store on $name', ({ open }) => { ... })
 */
export function testDatabases(
  env: Record<string, string | undefined> = process.env,
): TestDatabase[] {
  const list: TestDatabase[] = [{ name: 'pglite', open: openTemplatePglite }]
  const url = env.DATABASE_URL
  if (url) list.push({ name: 'postgres', open: () => openThrowawayPostgres(url) })
  return list
}

async function openThrowawayPostgres(baseUrl: string): Promise<Database> {
  const name = `kcore_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`create database "${name}"`)
  } finally {
    await admin.end()
  }
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  const database = openPostgresDatabase(url.toString())
  return {
    ...database,
    async close() {
      await database.close()
      const dropper = postgres(baseUrl, { max: 1, onnotice: () => {} })
      try {
        await dropper.unsafe(`drop database if exists "${name}" with (force)`)
      } finally {
        await dropper.end()
      }
    },
  }
}

/**
 * A fresh in-memory PGlite database. Starting PGlite costs 1.5–3 s even from a dumped empty
 * cluster, most of what a PGlite test paid, so the engines outlive the databases that used
 * them: `close()` resets the engine to the empty cluster ({@link resetEngine}) and keeps it for
 * the next `open()` of this process. An engine that cannot be shown empty again is closed.
 */
async function openTemplatePglite(): Promise<Database> {
  return openSupervised(startPooledEngine, undefined, undefined)
}

/** An engine kept between databases, and where its notifications go now. */
interface PooledEngine {
  engine: PgliteEngine
  events: EngineEvents | undefined
}

/** Idle engines of this process, empty and ready. */
const idleEngines: PooledEngine[] = []
/** At most this many idle engines are kept (a test rarely holds more databases at once). */
const MAX_IDLE_ENGINES = 4
/** What an empty cluster looks like ({@link fingerprint}), read from the first engine. */
let emptyFingerprint: Promise<string> | undefined

async function startPooledEngine(events: EngineEvents): Promise<PgliteEngine> {
  let pooled = idleEngines.pop()
  if (!pooled) {
    const fresh: PooledEngine = { engine: undefined as unknown as PgliteEngine, events }
    fresh.engine = await startTemplateEngine({
      notify: (channel) => fresh.events?.notify(channel),
      lost: (error) => fresh.events?.lost(error),
    })
    emptyFingerprint ??= fingerprint(fresh.engine)
    await emptyFingerprint
    pooled = fresh
  }
  const owned = pooled
  owned.events = events
  let released = false
  return {
    query: (text, parameters) =>
      released
        ? Promise.reject(new Error('the database is closed'))
        : owned.engine.query(text, parameters),
    drop() {
      released = true
      owned.events = undefined
      owned.engine.drop()
    },
    async close() {
      if (released) return
      released = true
      owned.events = undefined
      if (idleEngines.length < MAX_IDLE_ENGINES && (await resetEngine(owned.engine)))
        idleEngines.push(owned)
      else await owned.engine.close()
    },
  }
}

async function startTemplateEngine(events: EngineEvents): Promise<PgliteEngine> {
  const template = await pgliteTemplate().catch(() => undefined)
  try {
    return await startWorkerEngine({ loadDataDir: template }, events)
  } catch (error) {
    // An unreadable template (say, a disk that filled up while it was written): start empty.
    if (!template) throw error
    templateBlob = undefined
    return startWorkerEngine({}, events)
  }
}

/**
 * Brings a used engine back to the empty cluster: no open transaction, listen, lock, setting,
 * prepared statement or temporary table, every schema but the system ones dropped and
 * `public` made anew as `initdb` makes it. True when the result is shown equal to an empty
 * cluster by {@link fingerprint}; false (or a failure) means the engine must not be reused.
 */
async function resetEngine(engine: PgliteEngine): Promise<boolean> {
  try {
    await engine.query('rollback', []).catch(() => {})
    for (const statement of RESET_STATEMENTS) await engine.query(statement, [])
    return (await fingerprint(engine)) === (await emptyFingerprint)
  } catch {
    return false
  }
}

const RESET_STATEMENTS = [
  'discard all',
  'select pg_advisory_unlock_all()',
  `do $$ declare s name; begin
     for s in select nspname from pg_namespace
       where nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
         and nspname not like 'pg_temp_%' and nspname not like 'pg_toast_temp_%'
     loop execute format('drop schema %I cascade', s); end loop;
   end $$`,
  'create schema public authorization pg_database_owner',
  'grant usage on schema public to public',
  `comment on schema public is 'standard public schema'`,
  `do $$ declare e name; begin
     for e in select extname from pg_extension where extname <> 'plpgsql'
     loop execute format('drop extension %I cascade', e); end loop;
   end $$`,
]

/**
 * What a test could leave behind in a cluster, as one string: schemas and their privileges,
 * extensions, roles, event triggers, per-database settings, large objects, relations, types and
 * functions outside the system schemas.
 */
async function fingerprint(engine: PgliteEngine): Promise<string> {
  const { rows } = await engine.query<{ f: string }>(
    `select concat_ws('|',
       (select string_agg(nspname || ':' || coalesce(nspacl::text, '') || ':' || nspowner::regrole::text, ',' order by nspname)
          from pg_namespace where nspname not like 'pg_temp_%' and nspname not like 'pg_toast_temp_%'),
       (select string_agg(extname, ',' order by extname) from pg_extension),
       (select string_agg(rolname, ',' order by rolname) from pg_roles),
       (select count(*) from pg_event_trigger),
       (select count(*) from pg_db_role_setting),
       (select count(*) from pg_largeobject_metadata),
       (select count(*) from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')),
       (select count(*) from pg_proc p join pg_namespace n on n.oid = p.pronamespace
          where n.nspname not in ('pg_catalog', 'information_schema')),
       (select count(*) from pg_type t join pg_namespace n on n.oid = t.typnamespace
          where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast'))
     ) as f`,
    [],
  )
  return rows[0]!.f
}

let templateBlob: Promise<Blob> | undefined

/**
 * The dump of an empty PGlite cluster, kept in the system's temporary directory per PGlite
 * version, so every test process (Vitest forks one per file) reads it instead of making it.
 * Written to a unique name and renamed, so concurrent writers never leave half a file.
 */
function pgliteTemplate(): Promise<Blob> {
  templateBlob ??= (async () => {
    const file = join(tmpdir(), `kcore-pglite-template-${pgliteVersion()}.tar`)
    try {
      return new Blob([await readFile(file)])
    } catch {
      const pglite = await PGlite.create()
      try {
        const dump = await pglite.dumpDataDir('none')
        const partial = `${file}.${process.pid}.${Date.now()}`
        await writeFile(partial, new Uint8Array(await dump.arrayBuffer()))
        await rename(partial, file)
        return dump
      } finally {
        await pglite.close()
      }
    }
  })()
  return templateBlob
}

/** The installed PGlite's version: a template only fits the PGlite that wrote it. */
function pgliteVersion(): string {
  const require = createRequire(import.meta.url)
  let dir = dirname(require.resolve('@electric-sql/pglite'))
  for (;;) {
    try {
      const pkg = require(join(dir, 'package.json')) as { name?: string; version?: string }
      if (pkg.name === '@electric-sql/pglite' && pkg.version) return pkg.version
    } catch {}
    const parent = dirname(dir)
    if (parent === dir) return 'unknown'
    dir = parent
  }
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
  const seed = Number(env.KCORE_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31))
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
