import type { IpVersion, SnapshotProvider } from '@kcore/engine'
import type { KcoreStore } from './kcore-store-types.js'
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

/**
 * A {@link SyncRunner} over one store and provider; `onSettled` runs after every sync, and
 * each sync gives up after `deadlineMs` (default {@link DEFAULT_REFRESH_DEADLINE_MS}).
 */
export function createSyncRunner(
  store: KcoreStore,
  provider: SnapshotProvider,
  onSettled: () => void = () => {},
  deadlineMs = DEFAULT_REFRESH_DEADLINE_MS,
): SyncRunner {
  let current: Promise<SyncResults> | undefined
  return {
    get running() {
      return current !== undefined
    },
    run(ipVersions) {
      if (current) return Promise.reject(new RefreshInProgressError())
      const run = syncFromProvider({ store, provider, ipVersions, deadlineMs }).finally(() => {
        if (current === run) current = undefined
        onSettled()
      })
      current = run
      return run
    },
    async idle() {
      while (current) await current.catch(() => {})
    },
  }
}
