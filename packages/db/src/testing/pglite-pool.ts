import { readFile, rename, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Database } from '../database.js'
import { openSupervised } from '../pglite-database.js'
import type { EngineEvents, PgliteEngine } from '../pglite-engine.js'
import { startWorkerEngine } from '../pglite-worker-engine.js'
import { EMPTY_AGAIN, fingerprintQuery } from './empty-database.js'
import { pgliteVersion } from './pglite-version.js'

/**
 * A fresh in-memory PGlite database. Starting PGlite costs 1.5–3 s even from a dumped empty
 * cluster, most of what a PGlite test paid, so the engines outlive the databases that used
 * them: `close()` resets the engine to the empty cluster ({@link resetEngine}) and keeps it for
 * the next `open()` of this process. An engine that cannot be shown empty again is closed.
 */
export async function openPooledPglite(): Promise<Database> {
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
    await engine.query('discard all', [])
    await engine.query('select pg_advisory_unlock_all()', [])
    for (const statement of EMPTY_AGAIN) await engine.query(statement, [])
    return (await fingerprint(engine)) === (await emptyFingerprint)
  } catch {
    return false
  }
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
