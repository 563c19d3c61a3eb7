import type { KcoreStore, Scheduler, SyncRunner } from '@kcore/store'
import type { AdminAuth } from './admin-auth.js'
import type { ResponseCache } from './response-cache.js'

/** What the k-core routes share. */
export interface KcoreContext {
  store: KcoreStore
  version: string
  auth: AdminAuth
  runner: SyncRunner
  scheduler: Scheduler
  now: () => Date
  /** Serialized trend answers; undefined when turned off. */
  cache: ResponseCache | undefined
}
