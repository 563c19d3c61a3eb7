import type { Kysely } from 'kysely'

/** Which engine sits behind a {@link Database}. */
export type DialectName = 'postgres' | 'pglite'

/** Outcome of {@link Database.tryWithLock}. */
export type LockResult<T> = { acquired: true; value: T } | { acquired: false }

/**
 * One open database, whatever the engine. Stores take this object; hosts create it with
 * {@link openDatabase} and close it on shutdown.
 */
export interface Database {
  /** Untyped Kysely instance; each store narrows it to its own schema. */
  // biome-ignore lint/suspicious/noExplicitAny: each store brings its own table types
  readonly db: Kysely<any>
  readonly dialect: DialectName
  /**
   * Runs `fn` while holding the named exclusive lock, or returns `{ acquired: false }` at once
   * when somebody else holds it. PostgreSQL: a session advisory lock, so the lock spans every
   * process sharing the database and dies with a crashed holder. PGlite: in-process.
   */
  tryWithLock<T>(name: string, fn: () => Promise<T>): Promise<LockResult<T>>
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>
  /** Closes every connection. Further use fails. */
  close(): Promise<void>
}
