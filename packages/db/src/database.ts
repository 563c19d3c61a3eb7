import type { Kysely } from 'kysely'

/** Which engine sits behind a {@link Database}. */
export type DialectName = 'postgres' | 'pglite'

/** Outcome of {@link Database.tryWithLock}. */
export type LockResult<T> = { acquired: true; value: T } | { acquired: false }

/**
 * The tables a {@link Database} knows by itself: none. A store widens it to its own schema with
 * Kysely's `withTables` (`database.db.withTables<MySchema>()`), so no store sees another's
 * tables and nothing is cast.
 */
// biome-ignore lint/complexity/noBannedTypes: Kysely's empty schema, widened by withTables
export type NoTables = {}

/**
 * One open database, whatever the engine. Stores take this object; hosts create it with
 * {@link openDatabase} and close it on shutdown.
 */
export interface Database {
  /** Kysely over no tables; each store widens it with `withTables<Schema>()`. */
  readonly db: Kysely<NoTables>
  readonly dialect: DialectName
  /**
   * Runs `fn` while holding the named exclusive lock, or returns `{ acquired: false }` at once
   * when somebody else holds it. PostgreSQL: a session advisory lock, so the lock spans every
   * process sharing the database and dies with a crashed holder. PGlite: in-process.
   */
  tryWithLock<T>(name: string, fn: () => Promise<T>): Promise<LockResult<T>>
  /**
   * Runs `onNotify` on every `NOTIFY channel`, where a notification is known to arrive before
   * the commit that sent it returns to its caller: PGlite, whose every commit passes through
   * this object (one owner per data directory). Absent on PostgreSQL, where other processes
   * commit too and their notifications arrive some time after, so they cannot prove a cached
   * value fresh. `onNotify` gets the notification's payload, or undefined when a notification
   * may have been lost (the engine restarted): then nothing is known but that a cached value
   * may be stale. Resolves once listening; the result stops it.
   */
  readonly listenInProcess?: (
    channel: string,
    onNotify: (payload: string | undefined) => void,
  ) => Promise<() => void>
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>
  /** Closes every connection. Further use fails. */
  close(): Promise<void>
}
