import type { CalStore } from '@cal/store'

/** Options of {@link createCalApi}. Nothing here is read from the environment. */
export interface CalApiOptions {
  /** The calendar store (migrated). */
  store: CalStore
  /** Bearer tokens allowed to write (kept only as SHA-256 hashes); empty → every write is 401. */
  tokens: string[]
  /** Service time zone: IANA name or `UTC±H[:MM]`; default `UTC`. */
  timezone?: string
  /** The clock (tests pin it); default `() => new Date()`. */
  now?: () => Date
}
