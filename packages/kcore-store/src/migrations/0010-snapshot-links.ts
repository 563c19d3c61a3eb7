import { type Kysely, type Migration, sql } from 'kysely'

/**
 * The graph of each snapshot, beside its shell indices: `kcore_snapshot_links` holds the
 * snapshot's links as one blob in the engine's compact form (`encodeGraphLinks`, ~0.8 MB for a
 * 2024 IPv4 snapshot) and the version of that form, so what-if questions can be answered on any
 * stored date. Written in the transaction that writes the snapshot (a re-ingest replaces it or,
 * without links, deletes it), and gone with the snapshot's row (the foreign key cascades).
 * Snapshots stored before this migration have no row: their links are not stored until they
 * are ingested again. The blob is stored out of line uncompressed, as the shell blobs are (it is
 * varint-packed already).
 */
export const snapshotLinks: Migration = {
  async up<DB>(db: Kysely<DB>) {
    await sql`create table kcore_snapshot_links (
      ip_version text not null,
      snapshot_date date not null,
      format_version integer not null,
      links bytea not null,
      constraint kcore_snapshot_links_pk primary key (ip_version, snapshot_date),
      constraint kcore_snapshot_links_snapshot_fk foreign key (ip_version, snapshot_date)
        references kcore_snapshot (ip_version, date) on delete cascade
    )`.execute(db)
    await sql`alter table kcore_snapshot_links alter column links set storage external`.execute(db)
  },

  async down<DB>(db: Kysely<DB>) {
    await sql`drop table kcore_snapshot_links`.execute(db)
  },
}
