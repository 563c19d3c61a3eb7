import type { DatabaseLogger } from './database-config.js'
import {
  DatabaseUnavailableError,
  errorText,
  isOutOfSpace,
  StorageFullError,
} from './database-errors.js'
import {
  type EngineEvents,
  EngineLostError,
  type EngineResult,
  type PgliteEngine,
  type StartEngine,
} from './pglite-engine.js'

/** How often a query may try to start an engine that failed to start, at most. */
const RESTART_RETRY_MS = 1_000

/** What {@link PgliteSupervisor} needs to know. */
export interface SupervisorOptions {
  /** Starts an engine on the data directory (resolves once it answers). */
  start: StartEngine
  /** Receives every notification of every engine (see {@link EngineEvents.notify}). */
  notify(channel: string, payload: string): void
  /** The data directory; without one a restart would start empty, so a failed engine stays down. */
  dataDir?: string | undefined
  log?: DatabaseLogger | undefined
  /** Runs on every engine started after the first, before any query reaches it. */
  onRestart?(engine: PgliteEngine): Promise<void>
}

/**
 * The postmaster of the embedded database. PGlite runs PostgreSQL's single backend in a worker
 * thread of this process; when that backend PANICs (say, a WAL segment cannot be written on a
 * full disk), the WebAssembly runtime aborts and the instance is broken for good: PGlite
 * swallows the abort, and every later query fails oddly (`CommitTransaction while in COMMIT
 * state`, `cannot drop active portal`) or never returns. The same holds when the thread itself
 * dies. PostgreSQL's postmaster would start a new backend, which recovers from the WAL; this
 * does the same: it drops the failed engine (its files closed, its thread stopped, what was in
 * flight on it failed) and opens the data directory again, once at once and then at most every
 * {@link RESTART_RETRY_MS} while queries ask (recovery itself needs a little free space).
 * Queries meanwhile fail with {@link DatabaseUnavailableError}; an out-of-space failure is a
 * {@link StorageFullError} (ERROR-level ones leave the engine running: reads go on). Every such
 * failure is logged once, with the engine's full text.
 */
export class PgliteSupervisor {
  #current: PgliteEngine | undefined
  #starting: Promise<PgliteEngine> | undefined
  #down: { error: unknown; at: number } | undefined
  #closed = false

  private constructor(private readonly options: SupervisorOptions) {}

  /** Waits for the first engine; its failure is the caller's (nothing to restart yet). */
  static async start(options: SupervisorOptions): Promise<PgliteSupervisor> {
    const supervisor = new PgliteSupervisor(options)
    supervisor.#current = await supervisor.#startEngine()
    return supervisor
  }

  /** The running engine, starting a new one if the last failed (see the class). */
  async instance(): Promise<PgliteEngine> {
    if (this.#closed) throw new Error('the database is closed')
    if (this.#current) return this.#current
    if (this.#starting) return this.#starting
    const retryAt = (this.#down?.at ?? 0) + RESTART_RETRY_MS
    if (!this.options.dataDir || Date.now() < retryAt)
      throw new DatabaseUnavailableError({ cause: this.#down?.error })
    return this.#restart()
  }

  /** False once `engine` has failed: what ran on it (an open transaction) is gone. */
  isRunning(engine: PgliteEngine): boolean {
    return engine === this.#current
  }

  /**
   * One statement on `engine` (one {@link instance} returned). Fails with the engine's error,
   * a {@link StorageFullError} or a {@link DatabaseUnavailableError}.
   */
  async query<T>(
    engine: PgliteEngine,
    text: string,
    parameters: readonly unknown[],
  ): Promise<EngineResult<T>> {
    if (!this.isRunning(engine)) throw new DatabaseUnavailableError({ cause: this.#down?.error })
    try {
      return await engine.query<T>(text, parameters)
    } catch (error) {
      throw this.#failed(engine, error)
    }
  }

  /** Closes the running engine; later use fails. */
  async close(): Promise<void> {
    this.#closed = true
    await this.#starting?.catch(() => {})
    const engine = this.#current
    this.#current = undefined
    await engine?.close()
  }

  /** Starts an engine whose loss outside any query (its thread died) counts as its failure. */
  async #startEngine(): Promise<PgliteEngine> {
    let engine: PgliteEngine | undefined
    const events: EngineEvents = {
      notify: (channel, payload) => this.options.notify(channel, payload),
      lost: (error) => {
        if (engine) this.#failed(engine, error)
      },
    }
    engine = await this.options.start(events)
    return engine
  }

  #failed(engine: PgliteEngine, error: unknown): unknown {
    const full = isOutOfSpace(error)
    const fatal = isFatal(error)
    // An engine dropped already: what was in flight on it failed with it, reported then.
    if (engine !== this.#current)
      return full
        ? new StorageFullError({ cause: error })
        : new DatabaseUnavailableError({ cause: error })
    if (full || fatal) {
      this.options.log?.error(full ? 'database disk full' : 'embedded database failed', {
        dataDir: this.options.dataDir,
        error: errorText(error),
        restarting: fatal,
      })
    }
    if (fatal) {
      this.#discard(engine, error)
      if (this.options.dataDir) this.#restart().catch(() => {})
    }
    if (full) return new StorageFullError({ cause: error })
    if (fatal) return new DatabaseUnavailableError({ cause: error })
    return error
  }

  /** Forgets a failed engine without entering it again (it may never return). */
  #discard(engine: PgliteEngine, error: unknown): void {
    if (engine !== this.#current) return
    this.#current = undefined
    this.#down = { error, at: 0 }
    engine.drop()
  }

  #restart(): Promise<PgliteEngine> {
    this.#starting ??= (async () => {
      const started = Date.now()
      let engine: PgliteEngine | undefined
      try {
        engine = await this.#startEngine()
        await this.options.onRestart?.(engine)
        if (this.#closed) {
          await engine.close()
          throw new Error('the database is closed')
        }
        this.#current = engine
        this.#down = undefined
        this.options.log?.warn('embedded database restarted', {
          dataDir: this.options.dataDir,
          ms: Date.now() - started,
        })
        return engine
      } catch (error) {
        engine?.drop()
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

/**
 * True when the error means the engine is gone: PostgreSQL's PANIC (the WebAssembly runtime
 * aborts right after sending it) or FATAL (the backend exits), the runtime failing itself, or
 * the engine's thread ending ({@link EngineLostError}).
 */
function isFatal(error: unknown): boolean {
  const { severity, name } = (error ?? {}) as { severity?: unknown; name?: unknown }
  return (
    severity === 'PANIC' ||
    severity === 'FATAL' ||
    error instanceof EngineLostError ||
    name === 'RuntimeError' ||
    name === 'ExitStatus'
  )
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
