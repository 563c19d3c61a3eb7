import type { IpVersion, SnapshotProvider } from '@kcore/engine'
import type { KcoreStore } from './kcore-store-interface.js'
import { RefreshInProgressError } from './refresh-in-progress-error.js'
import { syncFromProvider, type VersionSyncResult } from './sync-from-provider.js'

/** How long a refresh or scheduled check may run when no deadline is given (spec, 10 min). */
export const DEFAULT_REFRESH_DEADLINE_MS = 600_000

/** Results of one sync, per IP version asked. */
export type SyncResults = Partial<Record<IpVersion, VersionSyncResult>>

/** Runs provider syncs one at a time in this process and knows whether one is running. */
export interface SyncRunner {
  /** True while a sync started here executes. */
  readonly running: boolean
  /**
   * Syncs the versions from the provider (`syncFromProvider`).
   * @throws {RefreshInProgressError} when a sync already runs here or in any process holding
   *   the database's refresh lock.
   */
  run(ipVersions: IpVersion[]): Promise<SyncResults>
  /** Resolves once no sync started here is running. */
  idle(): Promise<void>
}

/** Options of {@link createSyncRunner}. */
export interface SyncRunnerOptions {
  /** Each sync gives up after this many milliseconds (default {@link DEFAULT_REFRESH_DEADLINE_MS}). */
  deadlineMs?: number
  /**
   * Receives the error behind each snapshot that failed (its `failures[].cause`): the detail a
   * result's public `error` text leaves out (a database's message, a file path), for the logs.
   */
  onError?: (error: unknown) => void
}

/** A {@link SyncRunner} over one store and provider. It starts nothing until `run` is called. */
export function createSyncRunner(
  store: KcoreStore,
  provider: SnapshotProvider,
  options: SyncRunnerOptions = {},
): SyncRunner {
  const deadlineMs = options.deadlineMs ?? DEFAULT_REFRESH_DEADLINE_MS
  let current: Promise<SyncResults> | undefined
  return {
    get running() {
      return current !== undefined
    },
    run(ipVersions) {
      if (current) return Promise.reject(new RefreshInProgressError())
      const run = syncFromProvider({ store, provider, ipVersions, deadlineMs })
        .then((results) => {
          for (const result of Object.values(results))
            for (const failure of result?.failures ?? [])
              if (failure.cause !== undefined) options.onError?.(failure.cause)
          return results
        })
        .finally(() => {
          if (current === run) current = undefined
        })
      current = run
      return run
    },
    async idle() {
      while (current) await current.catch(() => {})
    },
  }
}
