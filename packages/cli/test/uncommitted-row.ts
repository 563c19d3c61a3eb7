import { openPostgresDatabase } from '@kcore/db'
import { sql } from 'kysely'

/** A row locked by a transaction that stays open until {@link UncommittedRow.release}. */
export interface UncommittedRow {
  /** Rolls the transaction back and closes its connection (again: the same promise). */
  release(): Promise<void>
}

class Rollback extends Error {}

/**
 * Locks a version's known-ASN row (`kcore_known_asns`, which must exist: one snapshot of the
 * version stored) by an update in a transaction left open. An ingest of that version locks the
 * row after writing its shell blob (its `insert into "kcore_known_asns" … on conflict do
 * update`), so it waits there, and a test can find it provably inside its transaction instead of
 * racing it.
 */
export async function holdKnownAsnsRow(
  url: string,
  ipVersion: 'ipv4' | 'ipv6',
): Promise<UncommittedRow> {
  const database = openPostgresDatabase(url, { maxConnections: 1 })
  let release = () => {}
  const released = new Promise<void>((resolve) => (release = resolve))
  let inserted = () => {}
  const ready = new Promise<void>((resolve) => (inserted = resolve))
  const done = database.db
    .transaction()
    .execute(async (trx) => {
      const { numAffectedRows } = await sql`update kcore_known_asns set asns = asns
        where ip_version = ${ipVersion}`.execute(trx)
      if (numAffectedRows !== 1n) throw new Error(`no known-ASN row of ${ipVersion} to hold`)
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
