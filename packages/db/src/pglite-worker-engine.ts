import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { PgliteStart } from './create-pglite.js'
import { errorText } from './database-errors.js'
import {
  type EngineEvents,
  EngineLostError,
  type EngineResult,
  type PgliteEngine,
} from './pglite-engine.js'
import type { FromWorker, ToWorker, WorkerStart } from './pglite-worker-protocol.js'
import { fromThreadError } from './thread-errors.js'

/** PGlite's WebAssembly as the first worker compiled it: later workers start without compiling. */
let wasmModule: WebAssembly.Module | undefined

/** How long a failed engine's thread gets to close its files before it is stopped anyway. */
const DROP_WAIT_MS = 1_000

/**
 * Starts a PGlite engine in a `worker_threads` Worker (`pglite-worker.ts`), so PostgreSQL's
 * work (planning, executing, WAL, parsing rows) runs beside the thread that serves requests,
 * which only posts statements and receives rows (structured clone: measured cheaper for that
 * thread than parsing PGlite's raw protocol answer there, see the README). Node, Bun and Deno
 * all run it. Resolves once the engine answers; a start failure is the engine's error.
 */
export async function startWorkerEngine(
  start: PgliteStart,
  events: EngineEvents,
): Promise<PgliteEngine> {
  const loadDataDir = start.loadDataDir ? await start.loadDataDir.arrayBuffer() : undefined
  const workerData: WorkerStart = { dataDir: start.dataDir, loadDataDir, wasmModule }
  const { script, eval: isCode } = workerScript()
  const worker = new Worker(script, {
    eval: isCode,
    workerData,
    transferList: loadDataDir ? [loadDataDir] : [],
    ...workerFlags(),
  })
  const engine = new WorkerEngine(worker, events)
  await engine.ready
  return engine
}

interface Pending {
  resolve(result: EngineResult<unknown>): void
  reject(error: unknown): void
}

class WorkerEngine implements PgliteEngine {
  readonly ready: Promise<void>
  #started = false
  /** Why the engine can no longer answer; set once. */
  #ended: Error | undefined
  #nextId = 0
  readonly #pending = new Map<number, Pending>()
  /** Settles the wait of `drop()` or `close()` for the worker's acknowledgement. */
  #acknowledged: (() => void) | undefined
  #readyWait!: { resolve(): void; reject(error: unknown): void }

  constructor(
    private readonly worker: Worker,
    private readonly events: EngineEvents,
  ) {
    this.ready = new Promise((resolve, reject) => {
      this.#readyWait = { resolve, reject }
    })
    worker.on('message', (message: FromWorker) => this.#receive(message))
    // An uncaught error ends the thread ('exit' follows); the error says why.
    worker.on('error', (error) => this.#end(error))
    worker.on('messageerror', (error) => this.#end(error))
    worker.on('exit', (code) =>
      this.#end(new EngineLostError(`the embedded database's thread exited (code ${code})`)),
    )
  }

  query<R>(text: string, parameters: readonly unknown[]): Promise<EngineResult<R>> {
    if (this.#ended) return Promise.reject(this.#ended)
    return new Promise<EngineResult<R>>((resolve, reject) => {
      const id = ++this.#nextId
      // Throws a DataCloneError for a parameter structured clone cannot carry (a function).
      this.#post({ type: 'query', id, text, parameters })
      this.#pending.set(id, { resolve: resolve as Pending['resolve'], reject })
      // Queries in flight keep the process alive; an idle engine does not (as in-thread PGlite).
      if (this.#pending.size === 1) this.worker.ref()
    })
  }

  drop(): void {
    if (this.#ended) return
    this.#end(new EngineLostError('the embedded database failed'), true)
    void this.#stopAfter({ type: 'drop' }, DROP_WAIT_MS)
  }

  async close(): Promise<void> {
    if (this.#ended) return
    this.#end(new Error('the database is closed'), true)
    await this.#stopAfter({ type: 'close' })
  }

  /** Asks the worker to close (its files), waits for its answer (at most `waitMs`), stops it. */
  async #stopAfter(message: ToWorker, waitMs?: number): Promise<void> {
    this.worker.ref()
    const acknowledged = new Promise<void>((resolve) => {
      this.#acknowledged = resolve
      this.worker.once('exit', () => resolve())
    })
    let timer: NodeJS.Timeout | undefined
    try {
      this.#post(message)
      await (waitMs === undefined
        ? acknowledged
        : Promise.race([acknowledged, new Promise((r) => (timer = setTimeout(r, waitMs)))]))
    } catch {
      // The thread is gone already.
    } finally {
      clearTimeout(timer)
      await this.worker.terminate()
    }
  }

  #post(message: ToWorker): void {
    this.worker.postMessage(message)
  }

  #receive(message: FromWorker): void {
    switch (message.type) {
      case 'notify':
        this.events.notify(message.channel, message.payload)
        return
      case 'result': {
        const pending = this.#settle(message.id)
        pending?.resolve({
          rows: rowObjects(message.names, message.rows),
          ...(message.affectedRows ? { affectedRows: message.affectedRows } : {}),
        })
        return
      }
      case 'error':
        this.#settle(message.id)?.reject(fromThreadError(message.error))
        return
      case 'ready':
        wasmModule ??= message.wasmModule
        this.#started = true
        this.worker.unref()
        this.#readyWait.resolve()
        return
      case 'failed':
        this.#end(fromThreadError(message.error))
        this.worker.terminate().catch(() => {})
        return
      case 'dropped':
      case 'closed':
        this.#acknowledged?.()
        return
    }
  }

  #settle(id: number): Pending | undefined {
    const pending = this.#pending.get(id)
    this.#pending.delete(id)
    if (this.#pending.size === 0 && !this.#ended) this.worker.unref()
    return pending
  }

  /**
   * The engine answers no more: fails what is in flight and, when its thread ended on its own
   * after starting (not by `drop()` or `close()`), tells the supervisor.
   */
  #end(reason: unknown, intended = false): void {
    if (this.#ended) return
    this.#ended =
      reason instanceof EngineLostError || intended
        ? (reason as Error)
        : new EngineLostError(`the embedded database's thread failed: ${errorText(reason)}`, {
            cause: reason,
          })
    if (!this.#started) this.#readyWait.reject(reason)
    else if (!intended) this.events.lost(this.#ended)
    for (const pending of this.#pending.values()) pending.reject(this.#ended)
    this.#pending.clear()
  }
}

/**
 * Rows as objects again, keyed by column name as PGlite keys them: a repeated name holds the
 * last column, and a column named `__proto__` is an own property (an assignment would set the
 * object's prototype instead).
 */
function rowObjects(names: string[], rows: unknown[][]): unknown[] {
  const special = names.includes('__proto__')
  const objects = new Array(rows.length)
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!
    const object: Record<string, unknown> = {}
    for (let c = 0; c < names.length; c++) {
      if (special && names[c] === '__proto__')
        Object.defineProperty(object, '__proto__', {
          value: row[c],
          enumerable: true,
          writable: true,
          configurable: true,
        })
      else object[names[c]!] = row[c]
    }
    objects[r] = object
  }
  return objects
}

/** Built, the worker is `dist/pglite-worker.js`; from sources (tests, tsx), `src/pglite-worker.ts`. */
const fromSource = import.meta.url.endsWith('.ts')
const entry = new URL(fromSource ? './pglite-worker.ts' : './pglite-worker.js', import.meta.url)

/**
 * What the Worker runs: the built entry; from sources under Node, a line that loads the entry
 * through tsx (a dev dependency), since neither Vitest's in-process transform nor (before
 * Node 22) a `--import tsx` reaches a worker thread. Bun and Deno run TypeScript themselves.
 */
function workerScript(): { script: URL | string; eval: boolean } {
  if (!fromSource || 'bun' in process.versions || 'deno' in process.versions)
    return { script: entry, eval: false }
  // The ES module build of `tsx/esm/api`, as its package's exports map names it.
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json')
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8'))
  const tsx = new URL(exports['./esm/api'].import.default, pathToFileURL(manifest)).href
  const [api, file] = [JSON.stringify(tsx), JSON.stringify(entry.href)]
  return {
    script: `import(${api}).then(({ tsImport }) => tsImport(${file}, ${file}))`,
    eval: true,
  }
}

/**
 * The Node flags the worker starts with: none. By default a worker gets its host's `execArgv`,
 * which need not suit it: `--input-type=module -e` (a one-liner) makes Node refuse a worker's
 * file entry, `-e`/`-i`/`-p` name the host's own input, and a host's `--import` hooks would load
 * again in each worker. The worker needs no flag (it loads its TypeScript itself, above). Bun and
 * Deno have no such inheritance to undo.
 */
function workerFlags(): { execArgv?: string[] } {
  return 'bun' in process.versions || 'deno' in process.versions ? {} : { execArgv: [] }
}
