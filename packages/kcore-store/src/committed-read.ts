import type { Kysely, Transaction } from 'kysely'
import type { KcoreSchema } from './schema.js'

/**
 * Runs `read` in one REPEATABLE READ, read-only transaction: every statement of it sees the
 * same committed state, so an answer built from several (a snapshot's record and its rows)
 * never mixes a replacement that commits meanwhile with what was there before.
 */
export function committedRead<T>(
  db: Kysely<KcoreSchema>,
  read: (trx: Transaction<KcoreSchema>) => Promise<T>,
): Promise<T> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(read)
}
