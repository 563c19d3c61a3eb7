import { type Kysely, sql } from 'kysely'
import type { LockResult } from './database.js'

/**
 * The 64-bit advisory-lock key of a lock name: the one mapping every lock of `@kcore/db` uses,
 * so a session lock and a transaction lock of the same name exclude each other.
 */
const lockKey = (name: string) => sql`hashtextextended(${name}, 0)`

/** `pg_advisory_xact_lock`: waits, then holds the named lock until `trx`'s transaction ends. */
export async function lockUntilCommit<DB>(trx: Kysely<DB>, name: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${lockKey(name)})`.execute(trx)
}

/**
 * A session advisory lock taken without waiting on one reserved connection (a session lock
 * belongs to its connection), held while `fn` runs on the pool, then released.
 */
export async function tryWithSessionLock<DB, T>(
  db: Kysely<DB>,
  name: string,
  fn: () => Promise<T>,
): Promise<LockResult<T>> {
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ ok: boolean }>`
      select pg_try_advisory_lock(${lockKey(name)}) as ok`.execute(conn)
    if (!rows[0]?.ok) return { acquired: false }
    try {
      return { acquired: true, value: await fn() }
    } finally {
      await sql`select pg_advisory_unlock(${lockKey(name)})`.execute(conn)
    }
  })
}
