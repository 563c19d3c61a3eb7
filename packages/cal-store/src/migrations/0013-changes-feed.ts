import { type Migration, sql } from 'kysely'
import { CHANGE_LOG_REVISIONS } from './0011-event-change-log.js'
import type { AnyDb } from './any-db.js'
import { REVISION_TRIGGERS } from './revision-triggers.js'

/**
 * The tables whose rows the changes feed reports, with how a row names its kind, its status
 * (what decides who may see it; a term has none, so it is `publish` while it exists) and its
 * change time. Expressions over the transition row `r`.
 */
const FED_TABLES = [
  ['cal_event', `'event'`, 'r.status', 'r.modified'],
  ['cal_venue', `'venue'`, 'r.status', 'r.modified'],
  ['cal_organizer', `'organizer'`, 'r.status', 'r.modified'],
  [
    'cal_term',
    `case r.taxonomy when 'cal_event_category' then 'category' else 'tag' end`,
    `'publish'`,
    'now()',
  ],
] as const

/**
 * The history behind `GET /changes` (the changes feed, `changes.ts`). Statement triggers on
 * every reported table write one `cal_change` row per row a statement touched, with the
 * record's status before and after it (`null`: the row did not exist), so whichever process or
 * script wrote it, trashes, permanent deletes and visibility moves are all seen; a reader
 * decides what each caller is shown from the two statuses. A change of an event's organizer
 * links is the event's change (its term links already rewrite its `term_ids` row).
 *
 * The commit-time bump of 0007/0011 files the transaction's rows under the revision it got, so
 * a reader at revision `n` sees exactly the changes of revisions ≤ `n` (revisions are handed out
 * in commit order). `cal_sync` holds this database's secret, which signs the feed's tokens (a
 * token of another database or a forged one fails the check), and `purged_through`: the
 * highest revision whose rows retention has deleted (an older token is expired). `modified` is
 * the record's own stamp (the feed's `modified_utc`), `at` when the change was written (retention).
 */
export const changesFeed: Migration = {
  async up(db: AnyDb) {
    await sql`create table cal_sync (
        id boolean primary key default true check (id),
        secret text not null,
        purged_through bigint not null default 0,
        retention_days double precision not null default 30 check (retention_days > 0))`.execute(db)
    // 32 random bytes from the server's generator (gen_random_uuid is core since PostgreSQL 13).
    await sql`insert into cal_sync (secret) values (
        replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''))`.execute(db)
    await sql`create table cal_change (
        seq bigint generated always as identity primary key,
        xid text not null,
        revision bigint,
        kind text not null,
        record_id bigint not null,
        before_status text,
        after_status text,
        modified timestamptz not null,
        at timestamptz not null default now())`.execute(db)
    // The bump's lookup (only rows not filed yet) and the feed's ordered range read.
    await sql`create index cal_change_xid_idx on cal_change (xid) where revision is null`.execute(
      db,
    )
    await sql`create index cal_change_revision_idx
        on cal_change (revision, kind, record_id, seq) where revision is not null`.execute(db)
    // The trim's lookup: the rows older than the cut, no more.
    await sql`create index cal_change_at_idx on cal_change (at) where revision is not null`.execute(
      db,
    )
    // By revision prefix (every revision up to the newest one with a change written before the
    // cut), moving `purged_through` in the same statement: a token at or past the mark still
    // finds every change after it, and a reader sees rows and mark of one snapshot.
    await sql`create function cal_trim_changes() returns void language sql as $$
        with mark as (
          select max(c.revision) as revision from cal_change c, cal_sync s
          where c.revision is not null and c.at < now() - s.retention_days * interval '1 day'),
        gone as (
          delete from cal_change c using mark
          where c.revision is not null and c.revision <= mark.revision)
        update cal_sync s set purged_through = mark.revision
        from mark where mark.revision > s.purged_through
      $$`.execute(db)

    await sql`create function cal_note_change() returns trigger language plpgsql as ${sql.raw(
      noteChangeBody(UPDATE_0013),
    )}`.execute(db)
    for (const [table, kind, status, modified] of FED_TABLES) {
      await createFeedTriggers(db, table, kind, status, modified)
    }

    // An event's organizer links are part of the event: their change is the event's update.
    await createLinkChangeFunction(db)
    for (const [suffix, event, rows] of REVISION_TRIGGERS) {
      await sql`create trigger ${sql.id(`cal_event_organizer_feed_${suffix}`)}
        after ${sql.raw(event)} on cal_event_organizer
        referencing ${sql.raw(rows)} table as cal_links
        for each statement execute function cal_note_link_change()`.execute(db)
    }

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
  async down(db: AnyDb) {
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
    for (const [suffix] of REVISION_TRIGGERS) {
      await sql`drop trigger ${sql.id(`cal_event_organizer_feed_${suffix}`)}
        on cal_event_organizer`.execute(db)
      for (const [table] of FED_TABLES) {
        await sql`drop trigger ${sql.id(`${table}_feed_${suffix}`)} on ${sql.table(table)}`.execute(
          db,
        )
      }
    }
    await sql`drop function cal_note_link_change()`.execute(db)
    await sql`drop function cal_trim_changes()`.execute(db)
    await sql`drop function cal_note_change()`.execute(db)
    await sql`drop table cal_change`.execute(db)
    await sql`drop table cal_sync`.execute(db)
  },
}

/**
 * The feed's statement triggers on `table` (dropping those of the same names first): each
 * notes the rows its statement touched, naming each record by `id` (an expression over the
 * transition row `r`) with its kind, status and stamp.
 */
export async function createFeedTriggers(
  db: AnyDb,
  table: string,
  kind: string,
  status: string,
  modified: string,
  id = 'r.id',
): Promise<void> {
  for (const [suffix, event] of REVISION_TRIGGERS) {
    const rows =
      event === 'insert'
        ? 'new table as cal_new'
        : event === 'delete'
          ? 'old table as cal_old'
          : 'old table as cal_old new table as cal_new'
    const name = sql.id(`${table}_feed_${suffix}`)
    await sql`drop trigger if exists ${name} on ${sql.table(table)}`.execute(db)
    await sql`create trigger ${name}
      after ${sql.raw(event)} on ${sql.table(table)}
      referencing ${sql.raw(rows)}
      for each statement execute function cal_note_change(
        ${sql.lit(kind)}, ${sql.lit(status)}, ${sql.lit(modified)}, ${sql.lit(id)})`.execute(db)
  }
}

/**
 * `cal_note_link_change()`: a statement on `cal_event_organizer` notes each linked event as
 * updated, named by `id` (an expression over the event row `e`).
 */
export async function createLinkChangeFunction(db: AnyDb, id = 'e.id'): Promise<void> {
  await sql`create or replace function cal_note_link_change() returns trigger
    language plpgsql as $$
      begin
        execute $q$ insert into cal_change
            (xid, kind, record_id, before_status, after_status, modified)
          select pg_current_xact_id()::text, 'event', ${sql.raw(id)}, e.status, e.status,
            e.modified
          from (select distinct event_id from cal_links) l join cal_event e on e.id = l.event_id
          $q$;
        return null;
      end $$`.execute(db)
}

/**
 * `cal_note_change()`'s body (a statement trigger's: see {@link createFeedTriggers}), its UPDATE
 * case given: 0013's, then 0016's. The trigger's arguments: kind, status, modified, public id.
 */
export function noteChangeBody(update: string): string {
  return `$$
      declare
        kind text := tg_argv[0];
        status text := tg_argv[1];
        modified text := tg_argv[2];
        -- The record's public id (an edited occurrence's is not its row id: see 0014).
        id text := coalesce(tg_argv[3], 'r.id');
      begin
        -- EXECUTE: planned afresh each statement (see 0003), transition tables stay visible.
        if tg_op = 'INSERT' then
          execute format($q$ insert into cal_change
              (xid, kind, record_id, before_status, after_status, modified)
            select pg_current_xact_id()::text, %s, %s, null, %s, %s from cal_new r $q$,
            kind, id, status, modified);
        elsif tg_op = 'DELETE' then
          execute format($q$ insert into cal_change
              (xid, kind, record_id, before_status, after_status, modified)
            select pg_current_xact_id()::text, %s, %s, %s, null, now() from cal_old r $q$,
            kind, id, status);
        else
${update}        end if;
        return null;
      end $$`
}

/** 0013's UPDATE case: each row under its public id after the statement. */
export const UPDATE_0013 = `          execute format($q$ insert into cal_change
              (xid, kind, record_id, before_status, after_status, modified)
            select pg_current_xact_id()::text, n.kind, n.record_id, o.status, n.status, n.modified
            from (select r.id, %s as status from cal_old r) o
            join (select r.id, %s as record_id, %s as kind, %s as status, %s as modified
              from cal_new r) n
              on n.id = o.id $q$,
            status, id, kind, status, modified);
`
