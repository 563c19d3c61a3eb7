import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { AsGraph } from './as-graph.js'
import { AsRelParseError } from './as-rel-parse-error.js'
import type { CoreDecomposition } from './core-decomposition.js'

/** A snapshot decoded, parsed and decomposed. */
export interface Decomposed {
  graph: AsGraph
  decomposition: CoreDecomposition
}

/** Options of {@link DecomposePool.decompose}. */
export interface DecomposeOptions {
  /** Stops the work: the worker is terminated at once and the promise rejects with the reason. */
  signal?: AbortSignal
  /** Refuse snapshots whose text is longer (see `parseAsRel`). */
  maxDecompressedBytes?: number
}

/** @internal What the pool posts to a worker. */
export interface DecomposeJob {
  bytes: Uint8Array
  maxDecompressedBytes?: number
}

/** @internal What a worker answers. */
export type DecomposeReply =
  | ({ ok: true } & Decomposed)
  | { ok: false; name: string; message: string; line: number | undefined }

// From dist (tsup) the worker is the `decompose-worker.js` entry beside this bundle. From src
// (Vitest, tsx with the "source" condition) it is TypeScript: a small CommonJS bootstrap
// registers tsx's require hook in the worker first (Node 20 applies neither `--import` in a
// worker's execArgv nor the parent's ESM loader hooks to a worker).
const fromSource = import.meta.url.endsWith('.ts')
const workerUrl = new URL(
  fromSource ? './decompose-worker.ts' : './decompose-worker.js',
  import.meta.url,
)

function startWorker(): Worker {
  if (!fromSource) return new Worker(workerUrl)
  const tsx = createRequire(import.meta.url).resolve('tsx/cjs/api')
  const bootstrap = `require(${JSON.stringify(tsx)}).register()
require(${JSON.stringify(fileURLToPath(workerUrl))})`
  return new Worker(bootstrap, { eval: true })
}

/**
 * Decodes, parses and decomposes snapshots in worker threads (one snapshot per worker, at most
 * `size` at once), so the thread that answers requests keeps ticking; an abort terminates the
 * worker, which stops even a tight decode loop at once. Idle workers do not keep the process
 * alive.
 */
export class DecomposePool {
  readonly size: number
  #idle: Worker[] = []
  #count = 0
  #waiting: (() => void)[] = []

  constructor(options: { size?: number } = {}) {
    this.size = Math.max(1, options.size ?? availableParallelism())
  }

  /**
   * Decomposes one snapshot's bytes (plain, bzip2 or gzip). The bytes are copied to the worker.
   *
   * @throws {AsRelParseError} as `parseAsRel` does; the signal's reason on abort.
   */
  async decompose(bytes: Uint8Array, options: DecomposeOptions = {}): Promise<Decomposed> {
    const { signal } = options
    signal?.throwIfAborted()
    const worker = await this.#acquire(signal)
    const copy = bytes.slice()
    return new Promise<Decomposed>((resolve, reject) => {
      const settle = (keep: boolean) => {
        worker.off('message', onMessage)
        worker.off('error', onError)
        worker.off('exit', onExit)
        signal?.removeEventListener('abort', onAbort)
        this.#release(worker, keep)
      }
      const onMessage = (reply: DecomposeReply) => {
        settle(true)
        if (reply.ok) resolve({ graph: reply.graph, decomposition: reply.decomposition })
        else reject(replyError(reply))
      }
      const onError = (error: Error) => {
        settle(false)
        reject(error)
      }
      const onExit = (code: number) => {
        settle(false)
        reject(new Error(`decompose worker exited with code ${code}`))
      }
      // Settles once the worker is gone, so "aborted" means the work has stopped.
      const onAbort = () => {
        settle(false)
        worker.terminate().then(
          () => reject(signal?.reason),
          () => reject(signal?.reason),
        )
      }
      worker.on('message', onMessage)
      worker.on('error', onError)
      worker.on('exit', onExit)
      signal?.addEventListener('abort', onAbort, { once: true })
      worker.ref()
      const job: DecomposeJob = { bytes: copy, maxDecompressedBytes: options.maxDecompressedBytes }
      worker.postMessage(job, [copy.buffer as ArrayBuffer])
    })
  }

  /** Terminates the idle workers (busy ones finish their snapshot and are then dropped). */
  async close(): Promise<void> {
    const idle = this.#idle
    this.#idle = []
    this.#count -= idle.length
    await Promise.all(idle.map((worker) => worker.terminate()))
  }

  async #acquire(signal?: AbortSignal): Promise<Worker> {
    for (;;) {
      const idle = this.#idle.pop()
      if (idle) return idle
      if (this.#count < this.size) {
        this.#count++
        return startWorker()
      }
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          this.#waiting.splice(this.#waiting.indexOf(wake), 1)
          reject(signal?.reason)
        }
        const wake = () => {
          signal?.removeEventListener('abort', onAbort)
          resolve()
        }
        this.#waiting.push(wake)
        signal?.addEventListener('abort', onAbort, { once: true })
      })
    }
  }

  #release(worker: Worker, keep: boolean): void {
    if (keep) {
      worker.unref()
      this.#idle.push(worker)
    } else this.#count--
    this.#waiting.shift()?.()
  }
}

function replyError(reply: Extract<DecomposeReply, { ok: false }>): Error {
  if (reply.name === 'AsRelParseError') return new AsRelParseError(reply.message, reply.line ?? 0)
  const error = new Error(reply.message)
  error.name = reply.name
  return error
}

let shared: DecomposePool | undefined

/**
 * {@link DecomposePool.decompose} on one process-wide pool sized to the machine's cores: what
 * the ingest paths use, so concurrent refreshes never start more workers than there are cores.
 */
export function decomposeInWorker(
  bytes: Uint8Array,
  options?: DecomposeOptions,
): Promise<Decomposed> {
  shared ??= new DecomposePool()
  return shared.decompose(bytes, options)
}
