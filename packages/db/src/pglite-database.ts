import { Kysely, sql } from 'kysely'
import { DataDirLockedError, lockDataDir, type ReleaseDataDir } from './data-dir-lock.js'
import type { Database, LockResult, NoTables } from './database.js'
import type { DatabaseLogger } from './database-config.js'
import { DatabaseOpenError } from './database-errors.js'
import { PgliteDialect } from './pglite-driver.js'
import type { EngineEvents, StartEngine } from './pglite-engine.js'
import { PgliteSupervisor } from './pglite-supervisor.js'
import { startWorkerEngine } from './pglite-worker-engine.js'

/** Options of `openPgliteDatabase`. */
export interface PgliteOptions {
  /**
   * A data directory dumped by PGlite's `dumpDataDir('none')` to start from instead of an empty
   * cluster: skips `initdb`, the bulk of PGlite's start-up (used by `@kcore/db/testing`).
   */
  loadDataDir?: Blob | undefined
  /** Where failures nobody awaits are reported (see `DatabaseConfig.log`). */
  log?: DatabaseLogger | undefined
}

/**
 * Opens an embedded PGlite database, persisted in `dataDir` or in memory, its engine in a worker
 * thread (`pglite-worker-engine.ts`) under a {@link PgliteSupervisor}. PGlite has a single
 * connection, so locks are in-process: every handler sharing this object shares its locks.
 * A `dataDir` is locked by this thread first (`lockDataDir`), before the worker touches it,
 * and released on `close()`, once the worker has ended.
 *
 * @throws {DataDirLockedError} when another live process has the directory open.
 */
export async function openPglite(dataDir?: string, options: PgliteOptions = {}): Promise<Database> {
  // The dump starts the first engine only; a restart recovers the data directory.
  let loadDataDir = options.loadDataDir
  const start = (events: EngineEvents) => {
    const load = loadDataDir
    loadDataDir = undefined
    return startWorkerEngine({ dataDir, loadDataDir: load }, events)
  }
  return openSupervised(start, dataDir, options.log)
}

/**
 * The {@link Database} over engines `start` makes, under one supervisor: `openPglite`'s, and
 * the test harness's, whose engines outlive the databases that used them (`testing.ts`).
 */
export async function openSupervised(
  start: StartEngine,
  dataDir: string | undefined,
  log: DatabaseLogger | undefined,
): Promise<Database> {
  const listeners = new Map<string, Set<(payload: string | undefined) => void>>()
  const dispatch = (channel: string, payload?: string) => {
    for (const onNotify of listeners.get(channel) ?? []) onNotify(payload)
  }
  // One process per directory: two PGlite instances on one folder corrupt it for good.
  const releaseDir = await naming(dataDir, () => (dataDir ? lockDataDir(dataDir) : noRelease()))
  let supervisor: PgliteSupervisor
  try {
    supervisor = await naming(dataDir, () =>
      PgliteSupervisor.start({
        start,
        notify: dispatch,
        dataDir,
        log,
        // A new engine knows no LISTEN of the old one, and a commit may have been cut short
        // after it became durable but before its notification arrived: listen again, and tell
        // every listener its cached value may be stale.
        async onRestart(engine) {
          for (const channel of listeners.keys())
            await engine.query(sql`listen ${sql.id(channel)}`.compile(db).sql, [])
          for (const channel of listeners.keys()) dispatch(channel)
        },
      }),
    )
  } catch (error) {
    await releaseDir()
    throw error
  }
  const db: Kysely<NoTables> = new Kysely<NoTables>({ dialect: new PgliteDialect(supervisor) })
  const held = new Set<string>()

  async function listenInProcess(channel: string, onNotify: (payload: string | undefined) => void) {
    let set = listeners.get(channel)
    if (!set) listeners.set(channel, (set = new Set()))
    set.add(onNotify)
    try {
      // Through Kysely, which queues it behind any open transaction (a LISTEN run inside one
      // that then rolled back would be undone, and nothing would ever notify).
      await sql`listen ${sql.id(channel)}`.execute(db)
    } catch (error) {
      set.delete(onNotify)
      throw error
    }
    return () => {
      set.delete(onNotify)
    }
  }

  async function tryWithLock<T>(name: string, fn: () => Promise<T>): Promise<LockResult<T>> {
    if (held.has(name)) return { acquired: false }
    held.add(name)
    try {
      return { acquired: true, value: await fn() }
    } finally {
      held.delete(name)
    }
  }

  return {
    db,
    dialect: 'pglite',
    tryWithLock,
    listenInProcess,
    // On the engine itself, not through the one session: a transaction holding the session (a
    // snapshot's ingest, 30-100 ms) would hold every health check behind it. `select 1` reads
    // nothing, so it may run between that transaction's statements; inside one that failed and
    // awaits its rollback it is refused (25P02), which is an answer too.
    async ping() {
      try {
        await supervisor.query(await supervisor.instance(), 'select 1', [])
        return true
      } catch (error) {
        return (error as { code?: unknown }).code === IN_FAILED_TRANSACTION
      }
    },
    async close() {
      try {
        await db.destroy()
      } finally {
        try {
          // Kysely destroys only a driver it has used: a database closed before its first
          // query would keep its engine (and, for a directory, run on after the lock is freed).
          await supervisor.close()
        } finally {
          await releaseDir()
        }
      }
    },
  }
}

/** SQLSTATE of a statement refused inside a transaction that failed and awaits its rollback. */
const IN_FAILED_TRANSACTION = '25P02'

async function noRelease(): Promise<ReleaseDataDir> {
  return async () => {}
}

/**
 * Runs a step of opening `dataDir`; a failure other than a held directory becomes one
 * {@link DatabaseOpenError} naming the directory (PGlite throws Emscripten objects, which are
 * no `Error` and print as `[object Object]`).
 */
async function naming<T>(dataDir: string | undefined, step: () => Promise<T>): Promise<T> {
  try {
    return await step()
  } catch (error) {
    if (error instanceof DataDirLockedError) throw error
    throw new DatabaseOpenError(dataDir, error)
  }
}
