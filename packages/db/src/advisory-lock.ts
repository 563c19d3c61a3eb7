import { type Kysely, type RawBuilder, sql } from 'kysely'
import type { LockResult } from './database.js'

/**
 * The 64-bit advisory-lock key of a lock name: the one mapping every lock of `@kcore/db` uses,
 * so a session lock and a transaction lock of the same name exclude each other.
 */
const lockKey = (name: string | RawBuilder<unknown>) => sql`hashtextextended(${name}, 0)`

/** `pg_advisory_xact_lock`: waits, then holds the named lock until `trx`'s transaction ends. */
export async function lockUntilCommit<DB>(trx: Kysely<DB>, name: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${lockKey(name)})`.execute(trx)
}

/**
 * {@link lockUntilCommit} on every name of `names`, in sorted order, in one statement (a write
 * naming 1,000 new records took 1,000 round trips one by one). Writers that need several locks
 * take them all this way up front: two naming the same records in opposite orders then queue
 * instead of each holding the lock the other waits for (deadlock). A held lock taken again later
 * in the transaction returns at once.
 */
export async function lockAllUntilCommit<DB>(
  trx: Kysely<DB>,
  names: Iterable<string>,
): Promise<void> {
  const sorted = [...new Set(names)].sort()
  if (sorted.length === 0) return
  // `offset 0` keeps the subquery's order: the locks are taken in the sorted order.
  await sql`select pg_advisory_xact_lock(${lockKey(sql.ref('s.name'))}) from (
    select name from unnest(${sorted}::text[]) with ordinality as u(name, n) order by n offset 0) s`.execute(
    trx,
  )
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
