import { readFile, rename, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Database } from '../database.js'
import { openSupervised } from '../pglite-database.js'
import type { EngineEvents, PgliteEngine } from '../pglite-engine.js'
import { startWorkerEngine } from '../pglite-worker-engine.js'
import { EMPTY_AGAIN, fingerprintQuery } from './empty-database.js'
import { pgliteVersion } from './pglite-version.js'
import {
  backToPristine,
  type Kept,
  type Migrate,
  type Run,
  readPristine,
  takeFor,
} from './pristine-state.js'

/**
 * A fresh in-memory PGlite database; with `migrate`, as `migrate` leaves an empty one. Starting
 * PGlite costs 1.5–3 s even from a dumped empty cluster, most of what a PGlite test paid, so
 * the engines outlive the databases that used them: `close()` brings the engine back to the
 * state it was handed out in (the empty cluster, or the migrated one: `pristine-state.ts`) and
 * keeps it for the next `open()` of this process. An engine that cannot be shown back in that
 * state is emptied, and one that cannot be shown empty is closed.
 */
export async function openPooledPglite(migrate?: Migrate): Promise<Database> {
  return openSupervised((events) => startPooledEngine(events, migrate), undefined, undefined)
}

/** An engine kept between databases, and where its notifications go now. */
interface PooledEngine extends Kept {
  engine: PgliteEngine
  events: EngineEvents | undefined
}

/** Idle engines of this process, ready: empty, or migrated and as their migration left them. */
const idleEngines: PooledEngine[] = []
/** At most this many idle engines are kept (a test rarely holds more databases at once). */
const MAX_IDLE_ENGINES = 4
/** What an empty cluster looks like ({@link fingerprint}), read from the first engine. */
let emptyFingerprint: Promise<string> | undefined

async function startPooledEngine(events: EngineEvents, migrate?: Migrate): Promise<PgliteEngine> {
  const owned = (await idleEngine(migrate)) ?? (await freshEngine())
  if (migrate && owned.migrated?.migrate !== migrate) {
    try {
      await migrateEngine(owned, migrate)
    } catch (error) {
      // Half a migration is no state to hand out again: emptied and kept, or closed.
      if (idleEngines.length < MAX_IDLE_ENGINES && (await resetEngine(owned)))
        idleEngines.push(owned)
      else await owned.engine.close()
      throw error
    }
  }
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
      if (idleEngines.length < MAX_IDLE_ENGINES && (await resetEngine(owned)))
        idleEngines.push(owned)
      else await owned.engine.close()
    },
  }
}

/**
 * An idle engine for `migrate`: one it migrated, else an empty one, else the longest idle one
 * emptied (starting an engine costs more than emptying one).
 */
async function idleEngine(migrate: Migrate | undefined): Promise<PooledEngine | undefined> {
  const pooled = takeFor(idleEngines, migrate)
  if (!pooled?.migrated || pooled.migrated.migrate === migrate) return pooled
  if (await emptyEngine(pooled)) return pooled
  await pooled.engine.close()
  return undefined
}

async function freshEngine(): Promise<PooledEngine> {
  const fresh: PooledEngine = { engine: undefined as unknown as PgliteEngine, events: undefined }
  fresh.engine = await startTemplateEngine({
    notify: (channel, payload) => fresh.events?.notify(channel, payload),
    lost: (error) => fresh.events?.lost(error),
  })
  emptyFingerprint ??= fingerprint(fresh.engine)
  await emptyFingerprint
  return fresh
}

/**
 * Runs `migrate` on an empty engine, through a database of its own that borrows the engine
 * (closing it leaves the engine running), and records the state it leaves.
 */
async function migrateEngine(owned: PooledEngine, migrate: Migrate): Promise<void> {
  const borrowing = await openSupervised(
    async (events) => {
      owned.events = events
      return { query: (t, p) => owned.engine.query(t, p), drop() {}, async close() {} }
    },
    undefined,
    undefined,
  )
  try {
    await migrate(borrowing)
  } finally {
    await borrowing.close()
    owned.events = undefined
  }
  owned.migrated = { migrate, pristine: await readPristine(run(owned.engine), true) }
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
 * Brings a used engine back to the state it was handed out in: no open transaction, listen,
 * lock, setting, prepared statement or temporary table, and the migrated state its migration
 * left ({@link backToPristine}), else the empty cluster ({@link emptyEngine}). False (or a
 * failure) means the engine must not be reused.
 */
async function resetEngine(owned: PooledEngine): Promise<boolean> {
  try {
    await owned.engine.query('rollback', []).catch(() => {})
    await owned.engine.query('discard all', [])
    await owned.engine.query('select pg_advisory_unlock_all()', [])
    const pristine = owned.migrated?.pristine
    if (pristine && (await backToPristine(run(owned.engine), true, pristine))) return true
    return await emptyEngine(owned)
  } catch {
    return false
  }
}

/**
 * Every schema but the system ones dropped and `public` made anew as `initdb` makes it; true
 * when the result is shown equal to an empty cluster by {@link fingerprint}.
 */
async function emptyEngine(owned: PooledEngine): Promise<boolean> {
  owned.migrated = undefined
  try {
    for (const statement of EMPTY_AGAIN) await owned.engine.query(statement, [])
    return (await fingerprint(owned.engine)) === (await emptyFingerprint)
  } catch {
    return false
  }
}

function run(engine: PgliteEngine): Run {
  return async <R>(text: string, parameters: readonly unknown[] = []) =>
    (await engine.query<R>(text, parameters)).rows
}

/** {@link fingerprintQuery} of the engine's cluster, roles included (the cluster is its own). */
async function fingerprint(engine: PgliteEngine): Promise<string> {
  const { rows } = await engine.query<{ f: string }>(fingerprintQuery(true), [])
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
      // Loaded here: a test process that opens no PGlite (PostgreSQL, the engine's) never loads it.
      const { PGlite } = await import('@electric-sql/pglite')
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
