import { createHash } from 'node:crypto'
import { availableParallelism } from 'node:os'
import {
  decomposeToLinksInWorker,
  type IpVersion,
  type SnapshotProvider,
  type SnapshotRef,
} from '@kcore/engine'
import type { KcoreStore } from './kcore-store-interface.js'
import type { NewSnapshot } from './kcore-store-types.js'
import { RefreshInProgressError } from './refresh-in-progress-error.js'
import { assertStorableSnapshot } from './snapshot-plausibility.js'
import { assertIpVersion } from './validate.js'

/** The name of the lock every refresh takes (`KcoreStore.tryWithLock`). */
export const REFRESH_LOCK = 'kcore:refresh'

/** Outcome of syncing one IP version from the provider. */
export interface VersionSyncResult {
  /** The provider was listed and every new snapshot was stored without error. */
  checked: boolean
  /** Dates stored by this run, oldest first. */
  added: string[]
  /** Newest stored date after the run, null when none is stored. */
  latestDate: string | null
  /** Null, or what went wrong (listing failure, or a summary of the failed snapshots). */
  error: string | null
  /**
   * Snapshots that could not be fetched, parsed or stored; the next run retries them. `error`
   * is fit to show anyone; a storage failure says only that (the database's own text, which
   * names files and SQL, is in `cause`, for logs).
   */
  failures: { date: string; error: string; cause?: unknown }[]
}

/** Reported after each snapshot a sync attempts. */
export interface SyncProgress {
  ipVersion: IpVersion
  date: string
  /** Snapshots attempted so far for this version, this one included. */
  done: number
  /** Snapshots this run attempts for this version. */
  total: number
  ok: boolean
  error?: string
}

/** What {@link syncFromProvider} works on. */
export interface SyncOptions {
  store: KcoreStore
  provider: SnapshotProvider
  /** Versions to sync, in this order (duplicates ignored). */
  ipVersions: IpVersion[]
  /** Only dates on or after this one (`YYYY-MM-DD`; a `YYYY-MM` prefix works too). */
  from?: string
  /** Aborts the run: the snapshot in flight is not stored and the promise rejects. */
  signal?: AbortSignal
  /**
   * Gives the whole run this many milliseconds (the spec's `KCORE_REFRESH_DEADLINE_MS`): past
   * it, the snapshot in flight is dropped and every version not finished resolves with
   * `checked: false`, the dates stored before the deadline in `added`, and an `error` saying so.
   * Unlike `signal`, it never rejects. No deadline when omitted.
   */
  deadlineMs?: number
  /**
   * Refuse a snapshot whose text is longer than this many bytes (`parseAsRel`'s cap, default
   * `DEFAULT_MAX_DECOMPRESSED_BYTES`); the download size cap is the provider's
   * (`maxDownloadBytes`).
   */
  maxDecompressedBytes?: number
  onProgress?: (progress: SyncProgress) => void
}

/**
 * Lists the provider and stores every listed snapshot whose date is not stored yet, oldest
 * first, each decomposed with `@kcore/engine` in a worker thread (as many snapshots ahead as
 * the worker pool has threads, so decoding overlaps storing and never blocks the caller's
 * event loop) and stored in its own transaction, under
 * `database.tryWithLock('kcore:refresh')` so one refresh runs at a time across every process
 * sharing the database. A snapshot that fails is reported in `failures` and the run goes on;
 * a listing failure marks that version unchecked.
 *
 * @throws {RefreshInProgressError} when another run holds the lock.
 */
export async function syncFromProvider(
  options: SyncOptions,
): Promise<Partial<Record<IpVersion, VersionSyncResult>>> {
  const versions = [...new Set(options.ipVersions)]
  for (const v of versions) assertIpVersion(v)
  if (options.from !== undefined && !/^\d{4}-\d{2}(-\d{2})?$/.test(options.from))
    throw new RangeError(`from must be YYYY-MM-DD or YYYY-MM, got ${String(options.from)}`)
  const { deadlineMs } = options
  if (deadlineMs !== undefined && !(Number.isInteger(deadlineMs) && deadlineMs > 0))
    throw new RangeError(`deadlineMs must be a positive integer, got ${String(deadlineMs)}`)
  const outcome = await options.store.tryWithLock(REFRESH_LOCK, async () => {
    // The deadline starts once the lock is ours: a run waiting for nothing is not timed.
    const deadline = deadlineMs === undefined ? undefined : AbortSignal.timeout(deadlineMs)
    const signals = [options.signal, deadline].filter((x) => x !== undefined)
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0]
    const results: Partial<Record<IpVersion, VersionSyncResult>> = {}
    for (const version of versions) {
      const result = emptyResult()
      results[version] = result
      try {
        await syncVersion({ ...options, signal }, version, result)
      } catch (error) {
        if (!deadline?.aborted || options.signal?.aborted) throw error
        result.checked = false
        result.error =
          `refresh deadline of ${deadlineMs} ms passed; stored before it: ` +
          (result.added.length > 0 ? result.added.join(', ') : 'nothing')
        result.latestDate = await latestDate(options.store, version)
      }
    }
    return results
  })
  if (!outcome.acquired) throw new RefreshInProgressError()
  return outcome.value
}

/** The newest stored date of the version, or null when none is. */
async function latestDate(store: KcoreStore, ipVersion: IpVersion): Promise<string | null> {
  const reader = await store.reader()
  return (await reader.trends(ipVersion, [])).dateRange?.latest ?? null
}

function emptyResult(): VersionSyncResult {
  return { checked: false, added: [], latestDate: null, error: null, failures: [] }
}

/** Syncs one version into `result` (filled as it goes, so an abort leaves what was stored). */
async function syncVersion(
  options: SyncOptions,
  ipVersion: IpVersion,
  result: VersionSyncResult,
): Promise<VersionSyncResult> {
  const { store, provider, signal, from } = options
  signal?.throwIfAborted()
  let refs: SnapshotRef[]
  try {
    refs = await provider.list(ipVersion, signal ? { signal } : undefined)
  } catch (error) {
    if (signal?.aborted) throw signal.reason
    result.error = `listing ${ipVersion} snapshots failed: ${messageOf(error)}`
    result.latestDate = await latestDate(store, ipVersion)
    return result
  }

  const stored = new Set(await (await store.reader()).storedDates(ipVersion))
  const byDate = new Map<string, SnapshotRef>()
  for (const ref of refs) {
    if (ref.ipVersion !== ipVersion || stored.has(ref.date)) continue
    if (from !== undefined && ref.date < from) continue
    // One file per date; should a listing offer two, serial-1 wins (the documented format).
    const seen = byDate.get(ref.date)
    if (!seen || (seen.serial === 2 && ref.serial === 1)) byDate.set(ref.date, ref)
  }
  const todo = [...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : 1))

  // Fetched and decomposed ahead, stored in date order (the plausibility check compares a
  // snapshot with its stored neighbours). Each prepared promise has a no-op catch attached so
  // that one failing before its turn is not an unhandled rejection; its turn reports it.
  const prepared: Promise<NewSnapshot>[] = []
  const prepare = (i: number) => {
    const ref = todo[i]
    if (!ref || prepared[i]) return
    prepared[i] = prepareSnapshot(options, ipVersion, ref)
    prepared[i].catch(() => {})
  }
  for (const [i, ref] of todo.entries()) {
    for (let ahead = 0; ahead <= LOOKAHEAD; ahead++) prepare(i + ahead)
    signal?.throwIfAborted()
    try {
      const snapshot = await prepared[i]!
      signal?.throwIfAborted()
      // An empty or implausibly small file is a failure of that date, so the next run retries it.
      await assertStorableSnapshot(store, snapshot)
      try {
        await store.ingest(snapshot)
      } catch (error) {
        throw new SnapshotNotStoredError(error)
      }
      result.added.push(ref.date)
      options.onProgress?.({
        ipVersion,
        date: ref.date,
        done: i + 1,
        total: todo.length,
        ok: true,
      })
    } catch (error) {
      if (signal?.aborted) throw signal.reason
      const message = messageOf(error)
      result.failures.push({
        date: ref.date,
        error: message,
        ...(error instanceof SnapshotNotStoredError ? { cause: error.cause } : {}),
      })
      options.onProgress?.({
        ipVersion,
        date: ref.date,
        done: i + 1,
        total: todo.length,
        ok: false,
        error: message,
      })
    }
    delete prepared[i]
  }
  result.checked = result.failures.length === 0
  if (result.failures.length > 0) {
    const list = result.failures.map((f) => `${f.date}: ${f.error}`).join('; ')
    result.error = `${result.failures.length} of ${todo.length} ${ipVersion} snapshots failed (${list})`
  }
  result.latestDate = await latestDate(store, ipVersion)
  return result
}

/** Snapshots decomposed ahead of the one being stored: one per worker of the pool. */
const LOOKAHEAD = availableParallelism()

/** Downloads and decomposes one snapshot (in a worker thread), ready to store. */
async function prepareSnapshot(
  options: SyncOptions,
  ipVersion: IpVersion,
  ref: SnapshotRef,
): Promise<NewSnapshot> {
  const { provider, signal } = options
  const opts = signal ? { signal } : undefined
  // `download` adds the file's modification time; a minimal provider only has `open`.
  const download = provider.download
    ? await provider.download(ref, opts)
    : { stream: await provider.open(ref, opts), lastModified: null }
  const bytes = new Uint8Array(await new Response(download.stream).arrayBuffer())
  // The links come encoded from the worker (stored for what-if reads), not the whole graph.
  const { decomposition, links, linkCount, metadata } = await decomposeToLinksInWorker(bytes, {
    signal,
    maxDecompressedBytes: options.maxDecompressedBytes,
  })
  return {
    ipVersion,
    date: ref.date,
    decomposition,
    linkCount,
    metadata,
    links,
    source: ref.fileName,
    provenance: {
      sourceUrl: ref.url,
      serial: ref.serial,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      fileModified: download.lastModified,
    },
  }
}

/** The database refused a snapshot: its message says so and nothing of the database's text. */
class SnapshotNotStoredError extends Error {
  constructor(cause: unknown) {
    super('storing the snapshot failed (database error; details in the server log)', { cause })
    this.name = 'SnapshotNotStoredError'
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
