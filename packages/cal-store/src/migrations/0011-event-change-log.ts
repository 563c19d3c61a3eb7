import { type Migration, sql } from 'kysely'
import type { AnyDb } from './any-db.js'
import { REVISION_TRIGGERS } from './revision-triggers.js'

/** How many revisions {@link eventChangeLog} keeps; a list model further behind reloads. */
export const CHANGE_LOG_REVISIONS = 2000

/**
 * Which events each revision changed, for list models that follow the revision in memory
 * (`event-list-model.ts`) instead of reloading every event. Statement triggers on `cal_event`
 * note the ids their statement wrote under the transaction id (`cal_event_change`; a truncate
 * notes a null id: "everything"); the commit-time bump of 0007 files the transaction under the
 * revision it got (`cal_revision_log`). Revisions are given out in commit order (the bump holds
 * the revision row until commit), so a reader that sees revision `n` sees every log entry up to
 * `n`. The bump also drops entries older than {@link CHANGE_LOG_REVISIONS}.
 */
export const eventChangeLog: Migration = {
  async up(db: AnyDb) {
    await sql`create table cal_revision_log (
        revision bigint primary key, xid text not null)`.execute(db)
    await sql`create index cal_revision_log_xid_idx on cal_revision_log (xid)`.execute(db)
    await sql`create table cal_event_change (xid text not null, event_id integer)`.execute(db)
    await sql`create index cal_event_change_xid_idx on cal_event_change (xid)`.execute(db)
    await sql`create function cal_note_event_change() returns trigger language plpgsql as $$
      begin
        insert into cal_event_change (xid, event_id)
          select pg_current_xact_id()::text, id from cal_changed;
        return null;
      end $$`.execute(db)
    await sql`create function cal_note_event_truncate() returns trigger language plpgsql as $$
      begin
        insert into cal_event_change (xid, event_id) values (pg_current_xact_id()::text, null);
        return null;
      end $$`.execute(db)
    for (const [suffix, event, rows] of REVISION_TRIGGERS) {
      await sql`create trigger ${sql.id(`cal_event_change_${suffix}`)}
        after ${sql.raw(event)} on cal_event
        referencing ${sql.raw(rows)} table as cal_changed
        for each statement execute function cal_note_event_change()`.execute(db)
    }
    await sql`create trigger cal_event_change_truncate after truncate on cal_event
      for each statement execute function cal_note_event_truncate()`.execute(db)
    await sql`create or replace function cal_bump_revision() returns trigger language plpgsql as $$
      declare
        next bigint;
      begin
        update cal_revision set n = n + 1 returning n into next;
        delete from cal_dirty where xid = new.xid;
        insert into cal_revision_log (revision, xid) values (next, new.xid);
        if next % 64 = 0 then
          with gone as (
            delete from cal_revision_log where revision <= next - ${sql.lit(CHANGE_LOG_REVISIONS)}
            returning xid)
          delete from cal_event_change c using gone where c.xid = gone.xid;
        end if;
        return null;
      end $$`.execute(db)
  },
  async down(db: AnyDb) {
    await sql`create or replace function cal_bump_revision() returns trigger language plpgsql as $$
      begin
        update cal_revision set n = n + 1;
        delete from cal_dirty where xid = new.xid;
        return null;
      end $$`.execute(db)
    for (const suffix of [...REVISION_TRIGGERS.map(([s]) => s), 'truncate']) {
      await sql`drop trigger ${sql.id(`cal_event_change_${suffix}`)} on cal_event`.execute(db)
    }
    await sql`drop function cal_note_event_truncate()`.execute(db)
    await sql`drop function cal_note_event_change()`.execute(db)
    await sql`drop table cal_event_change`.execute(db)
    await sql`drop table cal_revision_log`.execute(db)
  },
}
