import { availableParallelism } from 'node:os'
import { MessageChannel, type Worker } from 'node:worker_threads'
import type { AsGraph } from './as-graph.js'
import type { CoreDecomposition } from './core-decomposition.js'
import type {
  DecomposedLinks,
  DecomposeJob,
  DecomposeOutput,
  DecomposeReply,
  PartJob,
  WhatIfJob,
} from './decompose-messages.js'
import { replyError } from './decompose-reply-error.js'
import { detectCompression } from './detect-compression.js'
import type { GraphChange } from './graph-change.js'
import { unpackWhatIf } from './packed-what-if.js'
import { pairKey, sharedDecomposition, sharedGraph } from './shared-graph.js'
import { startWorker } from './start-decompose-worker.js'
import type { WhatIfOptions, WhatIfResult } from './what-if.js'

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

/** A bzip2 file is split across idle workers when each gets this many bytes (~a level-9 block). */
export const MIN_PART_BYTES = 192 * 1024

/**
 * Decodes, parses and decomposes snapshots in worker threads (at most `size` at once), so the
 * thread that answers requests keeps ticking. A bzip2 snapshot is split across the workers that
 * are idle when it comes (bzip2 blocks decode independently): each decodes and parses its share
 * of the blocks, the first stitches them; one snapshot at a time thus uses every core, and
 * concurrent snapshots get a worker each. An abort terminates the snapshot's workers, which
 * stops even a tight decode loop at once. Idle workers do not keep the process alive.
 */
export class DecomposePool {
  readonly size: number
  readonly #idleMs: number
  #idle: Worker[] = []
  #count = 0
  #waiting: (() => void)[] = []
  /** Stops the idle workers once the pool has had no work for `idleMs` (unref'd). */
  #idleTimer: NodeJS.Timeout | undefined

  /**
   * `size`: workers at most (default: the machine's cores). `idleMs`: how long workers are kept
   * once the pool has no work (default 10 s): a decoder holds tens of MB that an idle server
   * should not (the next snapshot starts them again).
   */
  constructor(options: { size?: number; idleMs?: number } = {}) {
    this.size = Math.max(1, options.size ?? availableParallelism())
    this.#idleMs = options.idleMs ?? 10_000
  }

  /** Workers started (idle or busy) and how many are busy: for tests and monitoring. */
  get workers(): { started: number; busy: number } {
    return { started: this.#count, busy: this.#count - this.#idle.length }
  }

  /**
   * Decomposes one snapshot's bytes (plain, bzip2 or gzip). The bytes are copied to the workers.
   *
   * @throws {AsRelParseError} as `parseAsRel` does; the signal's reason on abort.
   */
  async decompose(bytes: Uint8Array, options: DecomposeOptions = {}): Promise<Decomposed> {
    const reply = await this.#run(bytes, options, 'graph')
    if (reply.output !== 'graph') throw new Error('unreachable: a graph was asked for')
    return { graph: reply.graph, decomposition: reply.decomposition }
  }

  /**
   * {@link decompose}, the graph's links encoded in the worker (`encodeGraphLinks`) instead of
   * sent whole: what a store keeps. The thread that answers requests then receives the shell
   * indices and the links (1.4 MB for a 2024 snapshot) rather than the CSR as well (5.6 MB):
   * external memory that makes its garbage collector run full collections over its whole heap.
   *
   * @throws {AsRelParseError} as `parseAsRel` does; the signal's reason on abort.
   */
  async decomposeToLinks(
    bytes: Uint8Array,
    options: DecomposeOptions = {},
  ): Promise<DecomposedLinks> {
    const reply = await this.#run(bytes, options, 'links')
    if (reply.output !== 'links') throw new Error('unreachable: links were asked for')
    const { decomposition, links, linkCount, format, metadata } = reply
    return { decomposition, links, linkCount, format, metadata }
  }

  /**
   * `whatIf(graph, change, options)` in a worker: the same answer; the graph goes over in
   * shared memory, copied there once per graph object ({@link sharedGraph}), never modified;
   * with `before`, named ({@link pairKey}) so that the worker keeps what speeds up the next one.
   * @throws what `whatIf` throws (as an Error of the same name); the signal's reason on abort.
   */
  async whatIf(
    graph: AsGraph,
    change: GraphChange,
    options: WhatIfOptions & { signal?: AbortSignal } = {},
  ): Promise<WhatIfResult> {
    const { signal, before } = options
    signal?.throwIfAborted()
    const lead = await this.#acquire(signal)
    const reply = await this.#dispatch(lead, [], signal, () => {
      const job: WhatIfJob = { kind: 'what-if', graph: sharedGraph(graph), change }
      if (before) job.before = sharedDecomposition(before)
      if (job.before) job.key = pairKey(job.graph, job.before)
      lead.postMessage(job)
    })
    if (reply.output !== 'what-if') throw new Error('unreachable: a what-if answer was asked for')
    return unpackWhatIf(reply.result)
  }

  async #run(
    bytes: Uint8Array,
    options: DecomposeOptions,
    output: DecomposeOutput,
  ): Promise<Extract<DecomposeReply, { ok: true }>> {
    const { signal, maxDecompressedBytes } = options
    signal?.throwIfAborted()
    const lead = await this.#acquire(signal)
    const parts =
      detectCompression(bytes.subarray(0, 4)) === 'bzip2'
        ? Math.min(this.size, Math.floor(bytes.length / MIN_PART_BYTES))
        : 1
    const helpers = this.#acquireIdle(parts - 1)
    return this.#dispatch(lead, helpers, signal, () => {
      if (helpers.length === 0) {
        const copy = bytes.slice()
        const job: DecomposeJob = { kind: 'whole', output, bytes: copy, maxDecompressedBytes }
        lead.postMessage(job, [copy.buffer as ArrayBuffer])
        return
      }
      // one copy of the compressed bytes, shared by every part
      const shared = new Uint8Array(new SharedArrayBuffer(bytes.length))
      shared.set(bytes)
      const counted = new SharedArrayBuffer(8)
      const channels = helpers.map(() => new MessageChannel())
      helpers.forEach((helper, i) => {
        const lead = channels[i]!.port2
        const job: PartJob = {
          kind: 'part',
          bytes: shared,
          part: i + 1,
          parts: helpers.length + 1,
          lead,
          counted,
          maxDecompressedBytes,
        }
        helper.postMessage(job, [lead])
      })
      const ports = channels.map((channel) => channel.port1)
      const job: DecomposeJob = {
        kind: 'split',
        output,
        bytes: shared,
        helpers: ports,
        counted,
        maxDecompressedBytes,
      }
      lead.postMessage(job, ports)
    })
  }

  /**
   * Watches `lead` (its message is the answer) and `helpers` (released when they message), calls
   * `post`, and settles with the answer, or the failure once the job's workers are terminated.
   */
  #dispatch(
    lead: Worker,
    helpers: Worker[],
    signal: AbortSignal | undefined,
    post: () => void,
  ): Promise<Extract<DecomposeReply, { ok: true }>> {
    return new Promise<Extract<DecomposeReply, { ok: true }>>((resolve, reject) => {
      // each busy worker of this snapshot, with what removes its listeners
      const busy = new Map<Worker, () => void>()
      let settled = false
      const finish = (worker: Worker, keep: boolean) => {
        const detach = busy.get(worker)
        if (!detach) return
        busy.delete(worker)
        detach()
        this.#release(worker, keep)
      }
      // Settles once the workers are gone, so "aborted" means the work has stopped.
      const fail = (error: unknown) => {
        if (settled) return
        settled = true
        signal?.removeEventListener('abort', onAbort)
        const stopping = [...busy.keys()].map((worker) => {
          finish(worker, false)
          return worker.terminate()
        })
        Promise.allSettled(stopping).then(() => reject(error))
      }
      const onAbort = () => fail(signal?.reason)
      const watch = (worker: Worker, onMessage: (message: unknown) => void) => {
        const lost = (error: Error) => {
          if (!settled) return fail(error)
          finish(worker, false)
          worker.terminate().catch(() => {})
        }
        const onExit = (code: number) =>
          lost(new Error(`decompose worker exited with code ${code}`))
        worker.on('message', onMessage).on('error', lost).on('exit', onExit)
        busy.set(worker, () => {
          worker.off('message', onMessage).off('error', lost).off('exit', onExit)
        })
        worker.ref()
      }
      watch(lead, (message) => {
        const reply = message as DecomposeReply
        settled = true
        signal?.removeEventListener('abort', onAbort)
        finish(lead, true)
        if (reply.ok) resolve(reply)
        else reject(replyError(reply))
      })
      for (const helper of helpers) watch(helper, () => finish(helper, true))
      // An abort while the worker was being acquired has already fired: it stops the job now.
      if (signal?.aborted) return fail(signal.reason)
      signal?.addEventListener('abort', onAbort, { once: true })
      post()
    })
  }

  /** Terminates the idle workers (busy ones finish their snapshot and are then dropped). */
  async close(): Promise<void> {
    clearTimeout(this.#idleTimer)
    this.#idleTimer = undefined
    const idle = this.#idle
    this.#idle = []
    this.#count -= idle.length
    await Promise.all(idle.map((worker) => worker.terminate()))
  }

  async #acquire(signal?: AbortSignal): Promise<Worker> {
    for (;;) {
      const [worker] = this.#acquireIdle(1)
      if (worker) return worker
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

  /** Up to `n` workers that need no waiting: idle ones, or new ones while under `size`. */
  #acquireIdle(n: number): Worker[] {
    clearTimeout(this.#idleTimer)
    this.#idleTimer = undefined
    const workers: Worker[] = []
    while (workers.length < n) {
      const idle = this.#idle.pop()
      if (idle) workers.push(idle)
      else if (this.#count < this.size) {
        this.#count++
        workers.push(startWorker())
      } else break
    }
    return workers
  }

  #release(worker: Worker, keep: boolean): void {
    if (keep) {
      worker.unref()
      this.#idle.push(worker)
    } else this.#count--
    const next = this.#waiting.shift()
    if (next) {
      next()
      return
    }
    if (this.#count === this.#idle.length && this.#count > 0 && !this.#idleTimer) {
      this.#idleTimer = setTimeout(() => {
        this.#idleTimer = undefined
        void this.close()
      }, this.#idleMs)
      this.#idleTimer.unref()
    }
  }
}
