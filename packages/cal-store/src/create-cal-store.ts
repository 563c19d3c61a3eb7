import type { Database } from '@kcore/db'
import type { CalStore } from './cal-store.js'

/**
 * Wraps an open database into a {@link CalStore}. Call `migrate()` once before use.
 * (Implementation lands in the next commit; the types above are the contract.)
 */
export function createCalStore(_database: Database): CalStore {
  throw new Error('@cal/store: createCalStore not implemented yet')
}
