import type { IpVersion, SnapshotProvider } from '@kcore/engine'
import {
  type KcoreStore,
  RefreshInProgressError,
  syncFromProvider,
  type VersionSyncResult,
} from '@kcore/store'

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
 * each sync gives up after `deadlineMs` when given.
 */
export function createSyncRunner(
  store: KcoreStore,
  provider: SnapshotProvider,
  onSettled: () => void = () => {},
  deadlineMs?: number,
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
