import { type Kysely, type Migration, sql } from 'kysely'
import { intArray } from '../asn.js'
import { decodeAsns, fenceOf, fromBase64 } from '../shell-blobs.js'

/**
 * A fence beside each snapshot's blobs (`fenceOf` in `shell-blobs.ts`: every 256th ASN), so
 * the database finds an AS in a snapshot with one search of the fence and one 1 KB slice of
 * the ASN blob instead of a binary search of the whole blob (a TOAST fetch per probe, ~17
 * per snapshot). Written by every ingest from now on; cut here for the snapshots stored
 * before, one at a time (a blob read, its fence written back).
 */
export const asnFences: Migration = {
  async up<DB>(db: Kysely<DB>) {
    await sql`alter table kcore_snapshot_shells add column fence bigint[]`.execute(db)
    const { rows: stored } = await sql<{ ip_version: string; date: string }>`
      select ip_version, date::text as date from kcore_snapshot_shells
      order by ip_version, date`.execute(db)
    for (const { ip_version, date } of stored) {
      const { rows } = await sql<{ asns: string }>`
        select encode(asns, 'base64') as asns from kcore_snapshot_shells
        where ip_version = ${ip_version} and date = ${date}::date`.execute(db)
      const fence = fenceOf(decodeAsns(fromBase64(rows[0]!.asns)))
      await sql`update kcore_snapshot_shells set fence = ${intArray(fence)}
        where ip_version = ${ip_version} and date = ${date}::date`.execute(db)
    }
    await sql`alter table kcore_snapshot_shells alter column fence set not null`.execute(db)
  },

  async down<DB>(db: Kysely<DB>) {
    await sql`alter table kcore_snapshot_shells drop column fence`.execute(db)
  },
}
