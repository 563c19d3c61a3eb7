import type { WebhookSubscriptions } from '@kcore/webhooks'
import type { SnapshotProvider } from '@kcore/engine'
import type { KcoreStore, Scheduler, SyncRunner } from '@kcore/store'

/** Where the k-core API is mounted. */
export const KCORE_BASE = '/api'

/** Options of {@link createKcoreApi}. Nothing here is read from the environment. */
export interface KcoreApiOptions {
  /** A migrated k-core store (the caller owns its database). */
  store: KcoreStore
  /** Reported by `GET /api/health` (the package version). */
  version: string
  /**
   * Runs `POST /api/refresh` and `POST /api/scheduler/update` (`@kcore/store`'s
   * `createSyncRunner`; share the scheduler's, so the two never overlap in this process). A
   * runner does nothing until asked. Default: one over `provider`.
   */
  runner?: SyncRunner
  /**
   * Where the default runner lists and downloads snapshots; needed when no `runner` is given.
   * Nothing is fetched before a refresh is asked for.
   */
  provider?: SnapshotProvider
  /** The default runner's deadline (spec `KCORE_REFRESH_DEADLINE_MS`, default 600 000 ms). */
  refreshDeadlineMs?: number
  /**
   * The update scheduler whose state `GET /api/scheduler/status` reports. The host builds,
   * starts and closes it (`@kcore/store`'s `createScheduler`, as `@kcore/service` does): the
   * API starts no timer. Default: none (status says `enabled: false`).
   */
  scheduler?: Scheduler
  /**
   * When set (non-empty), `POST /api/refresh` and `POST /api/scheduler/update` require
   * `Authorization: Bearer <adminToken>`; reads stay public.
   */
  adminToken?: string
  /**
   * Serves `/api/webhooks` over these subscriptions (`webhookSubscriptions` of
   * `@kcore/webhooks`, with {@link WEBHOOK_EVENTS}), behind `adminToken`: without an admin
   * token the routes are not mounted (404), since nobody could be told apart from the public.
   */
  webhooks?: WebhookSubscriptions
  /**
   * Bound in bytes of the trend answers (`GET /api/trends/{asn}`, `POST /api/trends`) kept per
   * data revision for the next request at the same revision (default 32 MiB); `false` keeps
   * none. A newer revision drops every kept answer.
   */
  trendMemoBytes?: number | false
  /** The clock for timestamps; default `() => new Date()`. */
  now?: () => Date
}
