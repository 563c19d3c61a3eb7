import { type Migration, sql } from 'kysely'
import type { AnyDb } from './any-db.js'
import { REVISION_TRIGGERS } from './revision-triggers.js'

/** Every table whose rows can change what a calendar list answers. */
const CAL_TABLES = [
  'cal_event',
  'cal_event_term',
  'cal_event_organizer',
  'cal_term',
  'cal_venue',
  'cal_organizer',
]

/**
 * A data revision for caches in any process: `cal_revision.n` goes up by one in every
 * transaction that changes rows of a calendar table, whatever wrote it (store, script, psql).
 * Statement triggers mark the transaction in `cal_dirty` when their statement touched a row; a
 * deferred constraint trigger on that mark does the bump at commit, so the revision row is the
 * last lock a writer takes (no deadlock with the term-count locks) and is held only while it
 * commits. The bump commits with the data, so a
 * reader that reads the revision before its queries never sees data older than that revision.
 */
export const revision: Migration = {
  async up(db: AnyDb) {
    await sql`create table cal_revision (
        id boolean primary key default true check (id), n bigint not null)`.execute(db)
    await sql`insert into cal_revision (n) values (0)`.execute(db)
    await sql`create table cal_dirty (xid text primary key)`.execute(db)
    await sql`create function cal_mark_dirty() returns trigger language plpgsql as $$
      begin
        insert into cal_dirty values (pg_current_xact_id()::text) on conflict do nothing;
        return null;
      end $$`.execute(db)
    // Only statements that touched rows count: a refused write that ends as a zero-row UPDATE
    // (trashing a trashed record, say) leaves the revision, and so every cache, alone.
    await sql`create function cal_mark_changed() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from cal_changed) then
          insert into cal_dirty values (pg_current_xact_id()::text) on conflict do nothing;
        end if;
        return null;
      end $$`.execute(db)
    await sql`create function cal_bump_revision() returns trigger language plpgsql as $$
      begin
        update cal_revision set n = n + 1;
        delete from cal_dirty where xid = new.xid;
        return null;
      end $$`.execute(db)
    await sql`create constraint trigger cal_dirty_commit after insert on cal_dirty
      deferrable initially deferred for each row execute function cal_bump_revision()`.execute(db)
    for (const table of CAL_TABLES) {
      // A transition table belongs to one event, hence one trigger per kind of write.
      for (const [suffix, event, rows] of REVISION_TRIGGERS) {
        await sql`create trigger ${sql.id(`${table}_dirty_${suffix}`)}
          after ${sql.raw(event)} on ${sql.table(table)}
          referencing ${sql.raw(rows)} table as cal_changed
          for each statement execute function cal_mark_changed()`.execute(db)
      }
      await sql`create trigger ${sql.id(`${table}_dirty_truncate`)}
        after truncate on ${sql.table(table)}
        for each statement execute function cal_mark_dirty()`.execute(db)
    }
  },
  async down(db: AnyDb) {
    for (const table of CAL_TABLES) {
      for (const suffix of [...REVISION_TRIGGERS.map(([s]) => s), 'truncate']) {
        await sql`drop trigger ${sql.id(`${table}_dirty_${suffix}`)} on ${sql.table(table)}`.execute(
          db,
        )
      }
    }
    await sql`drop table cal_dirty`.execute(db)
    await sql`drop table cal_revision`.execute(db)
    await sql`drop function cal_bump_revision()`.execute(db)
    await sql`drop function cal_mark_changed()`.execute(db)
    await sql`drop function cal_mark_dirty()`.execute(db)
  },
}
