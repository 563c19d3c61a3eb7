import type { Migration } from 'kysely'
import { sql } from 'kysely'
import type { AnyDb } from './any-db.js'

/**
 * The data revision: one row whose counter every ingest bumps inside its own transaction, so a
 * reader in any process sees the new number exactly when it sees the new rows (a sequence would
 * move before the commit). Readers key caches and ETags on it.
 */
export const revision: Migration = {
  async up(db: AnyDb) {
    await sql`create table kcore_revision (
      singleton boolean primary key default true check (singleton),
      revision bigint not null
    )`.execute(db)
    await sql`insert into kcore_revision (revision) values (1)`.execute(db)
  },
  async down(db: AnyDb) {
    await db.schema.dropTable('kcore_revision').execute()
  },
}
