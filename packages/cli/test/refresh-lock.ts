import type { Database } from '@kcore/db'
import { REFRESH_LOCK } from '@kcore/store'
import { sql } from 'kysely'

/** Sessions of this database holding an advisory lock (the refresh lock is the only one). */
export async function advisoryLockHolders(database: Database): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_locks
     where locktype = 'advisory' and granted and database = (
       select oid from pg_database where datname = current_database())`.execute(database.db)
  return rows[0]!.n
}

/**
 * Takes and at once gives back the refresh lock on the handle's single connection: true when
 * nobody else holds it.
 */
export async function refreshLockIsFree(database: Database): Promise<boolean> {
  const outcome = await database.tryWithLock(REFRESH_LOCK, async () => true)
  return outcome.acquired
}
