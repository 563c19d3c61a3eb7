/** Paging of a list query. Both default: `limit` 10, `offset` 0. */
export interface Page {
  /** Rows per page, ≥ 1 (the store does not clamp; the API clamps to 50). */
  limit?: number
  /** Rows to skip, ≥ 0. */
  offset?: number
}

/** One page of a list query plus the number of rows matching the filter over all pages. */
export interface ListResult<T> {
  items: T[]
  /** Rows matching the filter, ignoring `limit`/`offset` (counted in SQL). */
  total: number
}
