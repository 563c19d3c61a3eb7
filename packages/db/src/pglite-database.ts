import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { Kysely, sql } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import { lockDataDir } from './data-dir-lock.js'
import type { Database, LockResult, NoTables } from './database.js'

const DATE_OID = 1082
const INT8_OID = 20

/** Options of `openPgliteDatabase`. */
export interface PgliteOptions {
  /**
   * A data directory dumped by PGlite's `dumpDataDir('none')` to start from instead of an empty
   * cluster: skips `initdb`, the bulk of PGlite's start-up (used by `@kcore/db/testing`).
   */
  loadDataDir?: Blob
}

/**
 * Opens an embedded PGlite database, persisted in `dataDir` or in memory. PGlite has a single
 * connection, so locks are in-process: every handler sharing this object shares its locks.
 * `pg_trgm` is bundled so migrations written for PostgreSQL (with contrib) run unchanged.
 * A `dataDir` is locked for this process first (`lockDataDir`) and released on `close()`.
 *
 * @throws {DataDirLockedError} when another live process has the directory open.
 */
export async function openPglite(dataDir?: string, options: PgliteOptions = {}): Promise<Database> {
  // One process per directory: two PGlite instances on one folder corrupt it for good.
  const releaseDir = dataDir ? await lockDataDir(dataDir) : async () => {}
  let pglite: PGlite
  try {
    pglite = await PGlite.create({
      ...(dataDir ? { dataDir } : {}),
      ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
      extensions: { pg_trgm },
      parsers: { [DATE_OID]: (v: string) => v, [INT8_OID]: (v: string) => Number(v) },
    })
  } catch (error) {
    await releaseDir()
    throw error
  }
  const db = new Kysely<NoTables>({ dialect: new PGliteDialect(pglite) })
  const held = new Set<string>()
  const listeners = new Map<string, Set<() => void>>()
  // PGlite queues these in the commit's own parse, so they run before its caller resumes.
  pglite.onNotification((channel) => {
    for (const onNotify of listeners.get(channel) ?? []) onNotify()
  })

  async function listenInProcess(channel: string, onNotify: () => void) {
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
    async ping() {
      try {
        await pglite.query('select 1')
        return true
      } catch {
        return false
      }
    },
    async close() {
      try {
        await db.destroy()
      } finally {
        await releaseDir()
      }
    },
  }
}
