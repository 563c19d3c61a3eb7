import { type Migration, sql } from 'kysely'
import { CHANGE_LOG_REVISIONS, eventChangeLog } from './0011-event-change-log.js'
import type { AnyDb } from './any-db.js'

/**
 * The tables the feed reports (0013), with how a row names its kind, its status and its public
 * id, as their row triggers name them (an event under 0014's public id).
 */
const TRUNCATED_TABLES = [
  ['cal_event', `'event'`, 'r.status', 'coalesce(r.occurrence_id, r.id)'],
  ['cal_venue', `'venue'`, 'r.status', 'r.id'],
  ['cal_organizer', `'organizer'`, 'r.status', 'r.id'],
  [
    'cal_term',
    `case r.taxonomy when 'cal_event_category' then 'category' else 'tag' end`,
    `'publish'`,
    'r.id',
  ],
] as const

/**
 * The bump at commit as 0015 makes it: the revision, the transaction's changes filed under it,
 * the history trimmed every 64 revisions; `then` runs last (0017 notes the revision's stamp).
 */
export async function createBumpRevision(db: AnyDb, then = ''): Promise<void> {
  await sql`create or replace function cal_bump_revision() returns trigger language plpgsql as $$
      declare
        next bigint;
      begin
        update cal_revision set n = n + 1 returning n into next;
        delete from cal_dirty where xid = new.xid;
        update cal_change set revision = next where xid = new.xid and revision is null;
        if next % 64 = 0 then
          perform cal_trim_changes();
        end if;${sql.raw(then)}
        return null;
      end $$`.execute(db)
}

/**
 * One change log. Every event write used to note its ids twice: in 0011's `cal_event_change`
 * (under `cal_revision_log`, for the in-memory list model) and in 0013's `cal_change` (the
 * feed and the webhooks). The list model now follows `cal_change` (the event ids filed under
 * the revisions past its own, complete while its revision is not behind `cal_sync.
 * purged_through`), so 0011's log, its triggers and the bump's filing into it go.
 *
 * 0011 noted a truncate of `cal_event` as "every event"; statement triggers see no rows of a
 * truncate, so a `before truncate` trigger on each reported table notes every row it is about to
 * remove as deleted: the list model re-reads them, and the feed reports them (it missed them).
 */
export const oneChangeLog: Migration = {
  async up(db: AnyDb) {
    for (const suffix of ['insert', 'update', 'delete', 'truncate']) {
      await sql`drop trigger ${sql.id(`cal_event_change_${suffix}`)} on cal_event`.execute(db)
    }
    await sql`drop function cal_note_event_truncate()`.execute(db)
    await sql`drop function cal_note_event_change()`.execute(db)
    await sql`drop table cal_event_change`.execute(db)
    await sql`drop table cal_revision_log`.execute(db)
    await createBumpRevision(db)
    await sql`create function cal_note_truncate() returns trigger language plpgsql as $$
      begin
        execute format($q$ insert into cal_change
            (xid, kind, record_id, before_status, after_status, modified)
          select pg_current_xact_id()::text, %s, %s, %s, null, now() from %I r $q$,
          tg_argv[0], tg_argv[2], tg_argv[1], tg_table_name);
        return null;
      end $$`.execute(db)
    for (const [table, kind, status, id] of TRUNCATED_TABLES) {
      await sql`create trigger ${sql.id(`${table}_feed_truncate`)}
        before truncate on ${sql.table(table)}
        for each statement execute function cal_note_truncate(
          ${sql.lit(kind)}, ${sql.lit(status)}, ${sql.lit(id)})`.execute(db)
    }
  },
  async down(db: AnyDb) {
    for (const [table] of TRUNCATED_TABLES) {
      await sql`drop trigger ${sql.id(`${table}_feed_truncate`)} on ${sql.table(table)}`.execute(db)
    }
    await sql`drop function cal_note_truncate()`.execute(db)
    // 0011's log, triggers and bump, then the bump as 0013 left it (filing both logs).
    await eventChangeLog.up(db)
    await sql`create or replace function cal_bump_revision() returns trigger language plpgsql as $$
      declare
        next bigint;
      begin
        update cal_revision set n = n + 1 returning n into next;
        delete from cal_dirty where xid = new.xid;
        insert into cal_revision_log (revision, xid) values (next, new.xid);
        update cal_change set revision = next where xid = new.xid and revision is null;
        if next % 64 = 0 then
          perform cal_trim_changes();
          with gone as (
            delete from cal_revision_log where revision <= next - ${sql.lit(CHANGE_LOG_REVISIONS)}
            returning xid)
          delete from cal_event_change c using gone where c.xid = gone.xid;
        end if;
        return null;
      end $$`.execute(db)
  },
}
