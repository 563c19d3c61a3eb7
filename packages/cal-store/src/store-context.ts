import type { Kysely } from 'kysely'
import type { CalSchema } from './schema.js'

/** The typed Kysely instance (or open transaction) the repositories run on. */
export type CalDb = Kysely<CalSchema>

/**
 * `db` (a caller's own, say a transaction over other tables too) seen with the calendar's
 * tables. Sound, since a database with more tables serves every query of one with fewer; a
 * cast because Kysely's types are invariant in the schema.
 */
export function withCalTables<DB>(db: Kysely<DB>): CalDb {
  return db.withTables<CalSchema>() as unknown as CalDb
}

/** What every repository needs: the database, the clock and the data revision. */
export interface StoreContext {
  readonly db: CalDb
  readonly now: () => Date
  /**
   * The committed data revision (`cal_revision.n`), never older than the call; concurrent
   * callers share reads, and on PGlite it is kept until a commit moves it (`revisionReads`).
   */
  readonly revision: () => Promise<number>
}
