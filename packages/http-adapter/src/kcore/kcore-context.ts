import type { KcoreReader, KcoreStore, Scheduler, SyncRunner } from '@kcore/store'
import { routeReading } from '../route.js'
import type { AdminAuth } from './admin-auth.js'

/** What the k-core routes share. */
export interface KcoreContext {
  store: KcoreStore
  version: string
  auth: AdminAuth
  runner: SyncRunner
  scheduler: Scheduler
  now: () => Date
}

/** `route()` for the k-core API: its handlers read through a {@link KcoreReader}. */
export const kcoreRoute = routeReading<KcoreReader>()

/**
 * The `cacheKey` of a k-core read: the route's name and its validated input, whose defaults are
 * filled in, so equal answers share a key (the core adds the reader's revision).
 */
export function inputKey(name: string) {
  return (input: { params?: unknown; query?: unknown }) => ({
    key: [name, JSON.stringify(input.params ?? null), JSON.stringify(input.query ?? null)].join(
      '|',
    ),
  })
}
