import type { Database } from '@kcore/db'
import { sql } from 'kysely'

/** One write of a `kcore_snapshot` row, as the audit trigger saw it (committed ones only). */
export interface IngestWrite {
  ip_version: string
  date: string
  /** `INSERT` for a first ingest, `UPDATE` for a snapshot stored again. */
  op: 'INSERT' | 'UPDATE'
}

/**
 * Adds a trigger to the (migrated) store that records every insert and update of a
 * `kcore_snapshot` row. Storing a date twice is otherwise invisible: the second ingest simply
 * replaces the first. The trigger writes inside the ingest's transaction, so a rolled-back
 * ingest leaves no record.
 */
export async function installIngestAudit(database: Database): Promise<void> {
  await sql`create table test_ingest_audit (
    ip_version text not null, date date not null, op text not null)`.execute(database.db)
  await sql`create function test_ingest_audit() returns trigger language plpgsql as $$
    begin
      insert into test_ingest_audit values (new.ip_version, new.date, tg_op);
      return null;
    end $$`.execute(database.db)
  await sql`create trigger test_ingest_audit after insert or update on kcore_snapshot
    for each row execute function test_ingest_audit()`.execute(database.db)
}

/** Every recorded write, by version and date. */
export async function ingestWrites(database: Database): Promise<IngestWrite[]> {
  const { rows } = await sql<IngestWrite>`
    select ip_version, date, op from test_ingest_audit order by ip_version, date, op`.execute(
    database.db,
  )
  return rows
}
