import type { ThreadError } from './thread-errors.js'

/** What a PGlite worker starts from (its `workerData`). */
export interface WorkerStart {
  dataDir?: string | undefined
  /** A data-directory dump to start from (transferred, not copied). */
  loadDataDir?: ArrayBuffer | undefined
  /** PGlite's WebAssembly compiled by an earlier worker of this process (see `ready`). */
  wasmModule?: WebAssembly.Module | undefined
}

/** From the serving thread to the worker. */
export type ToWorker =
  | { type: 'query'; id: number; text: string; parameters: readonly unknown[] }
  | { type: 'drop' }
  | { type: 'close' }

/**
 * From the worker to the serving thread, in the order they happened: a notification is posted
 * before the answer of the statement that committed it.
 */
export type FromWorker =
  /**
   * Started. `wasmModule`: the engine's WebAssembly as this worker compiled it, for the next
   * workers (PGlite keeps it per thread, and every worker is a new thread).
   */
  | { type: 'ready'; wasmModule?: WebAssembly.Module | undefined }
  | { type: 'failed'; error: ThreadError }
  | { type: 'notify'; channel: string; payload: string }
  /** Rows as arrays beside their column names: cheaper to clone than one object per row. */
  | { type: 'result'; id: number; names: string[]; rows: unknown[][]; affectedRows?: number }
  | { type: 'error'; id: number; error: ThreadError }
  | { type: 'dropped' }
  | { type: 'closed' }
