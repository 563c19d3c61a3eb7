import type { SnapshotProvider } from '@kcore/engine'
import type { KcoreStore, SchedulerOptions } from '@kcore/store'

/** Where the k-core API is mounted. */
export const KCORE_BASE = '/api'

/** Options of {@link createKcoreApi}. Nothing here is read from the environment. */
export interface KcoreApiOptions {
  /** A migrated k-core store (the caller owns its database). */
  store: KcoreStore
  /** Where refreshes and scheduled checks list and download snapshots. */
  provider: SnapshotProvider
  /** Reported by `GET /api/health` (the package version). */
  version: string
  /**
   * When set (non-empty), `POST /api/refresh` and `POST /api/scheduler/update` require
   * `Authorization: Bearer <adminToken>`; reads stay public.
   */
  adminToken?: string
  /**
   * The update scheduler (`@kcore/store`'s `createScheduler`), run in this process; default
   * `DEFAULT_SCHEDULER` (`{ enabled: true, schedule: '0 6 * * *' }`). Processes sharing one
   * PostgreSQL database may all run it: the refresh lock lets one check run at a time.
   */
  scheduler?: SchedulerOptions
  /**
   * Milliseconds a refresh or scheduled check may run (spec `KCORE_REFRESH_DEADLINE_MS`,
   * default `DEFAULT_REFRESH_DEADLINE_MS`, 600 000); past it the versions not finished answer `processed: false` with the
   * dates stored before it.
   */
  refreshDeadlineMs?: number
  /** The clock for timestamps and `next_run`; default `() => new Date()`. */
  now?: () => Date
  /** Receives what goes wrong in scheduled checks (never thrown anywhere). */
  onError?: (error: unknown) => void
  /**
   * Reuse of serialized trend answers while the stored data is unchanged (default on:
   * 32 MiB, changes from other processes noticed within 1 s); `false` turns it off.
   */
  responseCache?: false | ResponseCacheSettings
}

/** Settings of the trend response cache. */
export interface ResponseCacheSettings {
  /** Largest total size of cached answers, in bytes of JSON (default 32 MiB). */
  maxBytes?: number
  /** How often (ms) to look for data stored by other processes (default 1000). */
  revalidateMs?: number
}
