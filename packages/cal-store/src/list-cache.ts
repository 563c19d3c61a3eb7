import { LRUCache } from 'lru-cache'
import type { ListResult } from './page.js'

/** Settings of the event list cache (`createCalStore({ listCache })`). */
export interface ListCacheOptions {
  /** Most events held over all cached pages; default 5,000. */
  maxEvents?: number
}

/**
 * Pages of a list, each kept under the data revision it was read at (`cal_revision`, bumped by
 * every committing writer in any process). The revision is read before the queries run, so a
 * page filed under revision `r` holds data at least as new as `r`; once a writer commits, the
 * next read sees `r + 1` and misses. A hit costs one single-row query. Identical misses in
 * flight share one computation, so a burst of the same request runs the list once.
 */
export interface ListCache<T> {
  get(key: string, compute: () => Promise<ListResult<T>>): Promise<ListResult<T>>
}

/** A {@link ListCache} keyed by `revision()` (the store's shared revision read). */
export function createListCache<T>(
  revision: () => Promise<number>,
  options: ListCacheOptions = {},
): ListCache<T> {
  const pages = new LRUCache<string, Promise<ListResult<T>>>({
    maxSize: Math.max(1, options.maxEvents ?? 5000),
    // Settled pages weigh their length; a computation in flight weighs one until replaced.
    sizeCalculation: () => 1,
  })
  let newest = -1

  return {
    async get(key, compute) {
      const current = await revision()
      if (current > newest) {
        // Older pages can never be served again: free them at once.
        pages.clear()
        newest = current
      }
      const fullKey = `${current}\u0000${key}`
      let page = pages.get(fullKey)
      if (!page) {
        page = compute()
        pages.set(fullKey, page)
        page.then(
          (result) => {
            // Re-file at its real weight (unless it was dropped meanwhile).
            if (pages.get(fullKey) === page) {
              pages.set(fullKey, page as Promise<ListResult<T>>, {
                size: Math.max(1, result.items.length),
              })
            }
          },
          () => pages.delete(fullKey),
        )
      }
      // Callers own what they get: a copy, never the cached objects.
      return structuredClone(await page)
    },
  }
}
