import { type Kysely, type Migration, sql } from 'kysely'

/**
 * The data revision: one row whose counter every ingest bumps inside its own transaction, so a
 * reader in any process sees the new number exactly when it sees the new rows (a sequence would
 * move before the commit). Readers key caches and ETags on it.
 */
export const revision: Migration = {
  async up<DB>(db: Kysely<DB>) {
    await sql`create table kcore_revision (
      singleton boolean primary key default true check (singleton),
      revision bigint not null
    )`.execute(db)
    await sql`insert into kcore_revision (revision) values (1)`.execute(db)
  },
  async down<DB>(db: Kysely<DB>) {
    await db.schema.dropTable('kcore_revision').execute()
  },
}
