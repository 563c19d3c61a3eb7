import type { PGlite, Results } from '@electric-sql/pglite'
import type { DatabaseLogger } from './database-config.js'
import {
  DatabaseUnavailableError,
  errorText,
  isOutOfSpace,
  StorageFullError,
} from './database-errors.js'

/** How often a query may try to start an engine that failed to start, at most. */
const RESTART_RETRY_MS = 1_000

/** What {@link PgliteSupervisor} needs to know. */
export interface SupervisorOptions {
  /** Creates an engine on the data directory (waits until it is ready). */
  create(): PGlite
  /** The data directory; without one a restart would start empty, so a failed engine stays down. */
  dataDir?: string
  log?: DatabaseLogger
  /** Runs on every engine started after the first, before any query reaches it. */
  onRestart?(pglite: PGlite): Promise<void>
}

/**
 * The postmaster of the embedded database. PGlite runs PostgreSQL's single backend inside this
 * process; when that backend PANICs (say, a WAL segment cannot be written on a full disk), the
 * WebAssembly runtime aborts and the instance is broken for good: PGlite swallows the abort, and
 * every later query fails oddly (`CommitTransaction while in COMMIT state`, `cannot drop active
 * portal`) or never returns. PostgreSQL's postmaster would start a new backend, which recovers
 * from the WAL; this does the same: it drops the failed instance and opens the data directory
 * again, once at once and then at most every {@link RESTART_RETRY_MS} while queries ask
 * (recovery itself needs a little free space). Queries meanwhile fail with
 * {@link DatabaseUnavailableError}; an out-of-space failure is a {@link StorageFullError}
 * (ERROR-level ones leave the engine running: reads go on). Every such failure is logged with
 * the engine's full text.
 */
export class PgliteSupervisor {
  #current: PGlite | undefined
  #starting: Promise<PGlite> | undefined
  #down: { error: unknown; at: number } | undefined
  #closed = false

  private constructor(
    private readonly options: SupervisorOptions,
    first: PGlite,
  ) {
    this.#current = first
  }

  /** Waits for the first engine; its failure is the caller's (nothing to restart yet). */
  static async start(first: PGlite, options: SupervisorOptions): Promise<PgliteSupervisor> {
    try {
      return new PgliteSupervisor(options, await ready(first))
    } catch (error) {
      closeFiles(first)
      throw error
    }
  }

  /** The running engine, starting a new one if the last failed (see the class). */
  async instance(): Promise<PGlite> {
    if (this.#closed) throw new Error('the database is closed')
    if (this.#current) return this.#current
    if (this.#starting) return this.#starting
    const retryAt = (this.#down?.at ?? 0) + RESTART_RETRY_MS
    if (!this.options.dataDir || Date.now() < retryAt)
      throw new DatabaseUnavailableError({ cause: this.#down?.error })
    return this.#restart()
  }

  /** False once `pglite` has failed: what ran on it (an open transaction) is gone. */
  isRunning(pglite: PGlite): boolean {
    return pglite === this.#current
  }

  /**
   * One statement on `pglite` (an engine {@link instance} returned). Fails with the engine's
   * error, a {@link StorageFullError} or a {@link DatabaseUnavailableError}.
   */
  async query<T>(pglite: PGlite, text: string, parameters: unknown[]): Promise<Results<T>> {
    if (!this.isRunning(pglite)) throw new DatabaseUnavailableError({ cause: this.#down?.error })
    try {
      return await pglite.query<T>(text, parameters)
    } catch (error) {
      throw this.#failed(pglite, error)
    }
  }

  /** Closes the running engine; later use fails. */
  async close(): Promise<void> {
    this.#closed = true
    await this.#starting?.catch(() => {})
    const pglite = this.#current
    this.#current = undefined
    await pglite?.close()
  }

  #failed(pglite: PGlite, error: unknown): unknown {
    const full = isOutOfSpace(error)
    const fatal = isFatal(error)
    if (full || fatal) {
      this.options.log?.error(full ? 'database disk full' : 'embedded database failed', {
        dataDir: this.options.dataDir,
        error: errorText(error),
        restarting: fatal,
      })
    }
    if (fatal) {
      this.#discard(pglite, error)
      if (this.options.dataDir) this.#restart().catch(() => {})
    }
    if (full) return new StorageFullError({ cause: error })
    if (fatal) return new DatabaseUnavailableError({ cause: error })
    return error
  }

  /** Forgets a failed engine without entering it again (it may never return). */
  #discard(pglite: PGlite, error: unknown): void {
    if (pglite !== this.#current) return
    this.#current = undefined
    this.#down = { error, at: 0 }
    closeFiles(pglite)
  }

  #restart(): Promise<PGlite> {
    this.#starting ??= (async () => {
      const started = Date.now()
      const pglite = this.options.create()
      try {
        await ready(pglite)
        await this.options.onRestart?.(pglite)
        if (this.#closed) {
          await pglite.close()
          throw new Error('the database is closed')
        }
        this.#current = pglite
        this.#down = undefined
        this.options.log?.warn('embedded database restarted', {
          dataDir: this.options.dataDir,
          ms: Date.now() - started,
        })
        return pglite
      } catch (error) {
        closeFiles(pglite)
        this.#down = { error, at: Date.now() }
        this.options.log?.error('embedded database cannot start yet', {
          dataDir: this.options.dataDir,
          error: errorText(error),
          freeBytes: await freeBytes(this.options.dataDir),
        })
        throw new DatabaseUnavailableError({ cause: error })
      } finally {
        this.#starting = undefined
      }
    })()
    return this.#starting
  }
}

async function ready(pglite: PGlite): Promise<PGlite> {
  await pglite.waitReady
  return pglite
}

/**
 * True when the error means the engine is gone: PostgreSQL's PANIC (the WebAssembly runtime
 * aborts right after sending it) or FATAL (the backend exits), or the runtime failing itself.
 */
function isFatal(error: unknown): boolean {
  const { severity, name } = (error ?? {}) as { severity?: unknown; name?: unknown }
  return (
    severity === 'PANIC' ||
    severity === 'FATAL' ||
    error instanceof WebAssembly.RuntimeError ||
    name === 'ExitStatus'
  )
}

/**
 * Closes the host files an engine holds open, without running SQL on it. A dropped engine
 * would otherwise keep its files open, and on a full disk the space of files recovery removes.
 */
function closeFiles(pglite: PGlite): void {
  try {
    pglite.fs?.closeFs().catch(() => {})
  } catch {
    // An engine that never started has no files.
  }
}

/** Free bytes on the data directory's file system, for the log (undefined when unknown). */
async function freeBytes(dataDir: string | undefined): Promise<number | undefined> {
  if (!dataDir) return undefined
  try {
    // Loaded here: a host without statfs still opens the database.
    const { statfs } = await import('node:fs/promises')
    const stats = await statfs(dataDir)
    return stats.bavail * stats.bsize
  } catch {
    return undefined
  }
}
