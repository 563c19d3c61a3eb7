import type { Kysely } from 'kysely'
import type { CalSchema } from './schema.js'

/** The typed Kysely instance (or open transaction) the repositories run on. */
export type CalDb = Kysely<CalSchema>

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
