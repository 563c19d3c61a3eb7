import { MAX_IDS } from './id-list.js'
import type { ListResult, Page } from './page.js'

/** `limit`/`offset` of a page with defaults (10, 0), made safe integers; `limit` ≤ {@link MAX_IDS}. */
export function pageOf(page: Page): { limit: number; offset: number } {
  const limit = Math.min(MAX_IDS, Math.max(1, Math.floor(page.limit ?? 10) || 1))
  const offset = Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.floor(page.offset ?? 0) || 0))
  return { limit, offset }
}

/** An empty list result. */
export function emptyList<T>(): ListResult<T> {
  return { items: [], total: 0 }
}
