import { openPostgresDatabase } from '@kcore/db'
import { sql } from 'kysely'

/** A row inserted by a transaction that stays open until {@link UncommittedRow.release}. */
export interface UncommittedRow {
  /** Rolls the transaction back and closes its connection (again: the same promise). */
  release(): Promise<void>
}

class Rollback extends Error {}

/**
 * Inserts `asn` into a known-ASN table in a transaction left open. Any other transaction
 * inserting the same key (the last statement of an ingest) waits on it, so a test can find an
 * ingest provably inside its transaction instead of racing it.
 */
export async function holdUncommittedAsn(
  url: string,
  table: 'kcore_asn_ipv4' | 'kcore_asn_ipv6',
  asn: number,
): Promise<UncommittedRow> {
  const database = openPostgresDatabase(url, { maxConnections: 1 })
  let release = () => {}
  const released = new Promise<void>((resolve) => (release = resolve))
  let inserted = () => {}
  const ready = new Promise<void>((resolve) => (inserted = resolve))
  const done = database.db
    .transaction()
    .execute(async (trx) => {
      await sql`insert into ${sql.table(table)} (asn) values (${asn})`.execute(trx)
      inserted()
      await released
      throw new Rollback()
    })
    .catch((error) => {
      if (!(error instanceof Rollback)) throw error
    })
  try {
    await Promise.race([ready, done])
  } catch (error) {
    await database.close()
    throw error
  }
  let closed: Promise<void> | undefined
  return {
    release() {
      release()
      closed ??= done.finally(() => database.close())
      return closed
    },
  }
}
