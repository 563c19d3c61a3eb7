import { dropNotifyOnChange, notifyOnChange } from '@kcore/db'
import { type Kysely, type Migration, type MigrationProvider, sql } from 'kysely'
import { REVISION_CHANNEL } from './revision.js'

/** Kysely's bookkeeping tables for this package (apart from every other package's). */
export const MIGRATION_TABLE = 'cal_migration'
export const MIGRATION_LOCK_TABLE = 'cal_migration_lock'

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the schema exists
type AnyDb = Kysely<any>

const STATUS_CHECK = sql`status in ('publish', 'draft', 'pending', 'private', 'future', 'trash')`

const initial: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('cal_venue')
      .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
      .addColumn('author', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) => c.notNull().check(STATUS_CHECK))
      .addColumn('created', 'timestamptz', (c) => c.notNull())
      .addColumn('modified', 'timestamptz', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('image', 'text')
      .addColumn('show_map', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('show_map_link', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('address', 'text')
      .addColumn('city', 'text')
      .addColumn('country', 'text')
      .addColumn('province', 'text')
      .addColumn('state', 'text')
      .addColumn('zip', 'text')
      .addColumn('phone', 'text')
      .addColumn('website', 'text')
      .addColumn('geo_lat', 'double precision', (c) => c.check(sql`geo_lat between -90 and 90`))
      .addColumn('geo_lng', 'double precision', (c) => c.check(sql`geo_lng between -180 and 180`))
      .execute()
    await sql`create index cal_venue_name_idx on cal_venue (lower(name), id)`.execute(db)

    await db.schema
      .createTable('cal_organizer')
      .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
      .addColumn('author', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) => c.notNull().check(STATUS_CHECK))
      .addColumn('created', 'timestamptz', (c) => c.notNull())
      .addColumn('modified', 'timestamptz', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('image', 'text')
      .addColumn('phone', 'text')
      .addColumn('website', 'text')
      .addColumn('email', 'text')
      .execute()
    await sql`create index cal_organizer_name_idx on cal_organizer (lower(name), id)`.execute(db)

    await db.schema
      .createTable('cal_term')
      .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
      .addColumn('taxonomy', 'text', (c) =>
        c.notNull().check(sql`taxonomy in ('cal_event_category', 'cal_event_tag')`),
      )
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('parent_id', 'integer', (c) => c.references('cal_term.id').onDelete('set null'))
      .addUniqueConstraint('cal_term_slug_uq', ['taxonomy', 'slug'])
      .execute()
    // The sibling rule, enforced by the database too (two concurrent creates cannot both win).
    await sql`create unique index cal_term_sibling_name_uq
      on cal_term (taxonomy, coalesce(parent_id, 0), lower(name))`.execute(db)
    await db.schema.createIndex('cal_term_parent_idx').on('cal_term').column('parent_id').execute()

    await db.schema
      .createTable('cal_event')
      .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
      .addColumn('author', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) => c.notNull().check(STATUS_CHECK))
      .addColumn('created', 'timestamptz', (c) => c.notNull())
      .addColumn('modified', 'timestamptz', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('excerpt', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('image', 'text')
      .addColumn('all_day', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('start_utc', 'timestamptz', (c) => c.notNull())
      .addColumn('end_utc', 'timestamptz', (c) => c.notNull())
      .addColumn('timezone', 'text', (c) => c.notNull())
      .addColumn('cost', 'text')
      .addColumn('website', 'text')
      .addColumn('show_map', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('show_map_link', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('hide_from_listings', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('sticky', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('featured', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('ticketed', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('post_parent', 'integer', (c) => c.references('cal_event.id').onDelete('set null'))
      .addColumn('password_hash', 'text')
      .addColumn('venue_id', 'integer', (c) => c.references('cal_venue.id').onDelete('set null'))
      .addCheckConstraint('cal_event_end_after_start', sql`end_utc >= start_utc`)
      .execute()
    // Date window: ordered scans by start (the list order) and by end (the overlap's other side).
    await sql`create index cal_event_start_idx on cal_event (start_utc, id)`.execute(db)
    await sql`create index cal_event_end_idx on cal_event (end_utc)`.execute(db)
    await db.schema.createIndex('cal_event_venue_idx').on('cal_event').column('venue_id').execute()
    await db.schema
      .createIndex('cal_event_parent_idx')
      .on('cal_event')
      .column('post_parent')
      .execute()

    await db.schema
      .createTable('cal_event_organizer')
      .addColumn('event_id', 'integer', (c) =>
        c.notNull().references('cal_event.id').onDelete('cascade'),
      )
      .addColumn('organizer_id', 'integer', (c) =>
        c.notNull().references('cal_organizer.id').onDelete('cascade'),
      )
      .addColumn('position', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('cal_event_organizer_pk', ['event_id', 'organizer_id'])
      .execute()
    await sql`create index cal_event_organizer_rev_idx
      on cal_event_organizer (organizer_id, event_id)`.execute(db)

    await db.schema
      .createTable('cal_event_term')
      .addColumn('event_id', 'integer', (c) =>
        c.notNull().references('cal_event.id').onDelete('cascade'),
      )
      .addColumn('term_id', 'integer', (c) =>
        c.notNull().references('cal_term.id').onDelete('cascade'),
      )
      .addPrimaryKeyConstraint('cal_event_term_pk', ['event_id', 'term_id'])
      .execute()
    await sql`create index cal_event_term_rev_idx on cal_event_term (term_id, event_id)`.execute(db)
  },
  async down(db: AnyDb) {
    for (const table of [
      'cal_event_term',
      'cal_event_organizer',
      'cal_event',
      'cal_term',
      'cal_organizer',
      'cal_venue',
    ]) {
      await db.schema.dropTable(table).execute()
    }
  },
}

/**
 * Stored term counts (published events per term), kept right by statement-level triggers with
 * transition tables, so reading a term never counts events. Every path is covered: relations
 * added or removed, an event's status moving into or out of `publish`, an event deleted
 * outright. Term rows are locked (FOR NO KEY UPDATE, which foreign-key checks do not block) in
 * id order before their counts change, so concurrent writers touching the same terms queue
 * instead of deadlocking.
 */
const termCounts: Migration = {
  async up(db: AnyDb) {
    await sql`alter table cal_term add column count integer not null default 0`.execute(db)
    await sql`create function cal_term_count_add(delta_rows jsonb) returns void
      language plpgsql as $$
      begin
        perform 1 from cal_term
          where id in (select (d->>'term_id')::int from jsonb_array_elements(delta_rows) d)
          order by id for no key update;
        update cal_term t set count = t.count + (d->>'n')::int
          from jsonb_array_elements(delta_rows) d
          where t.id = (d->>'term_id')::int;
      end $$`.execute(db)
    await sql`create function cal_event_term_inserted() returns trigger language plpgsql as $$
      begin
        perform cal_term_count_add(coalesce((
          select jsonb_agg(jsonb_build_object('term_id', term_id, 'n', n)) from (
            select i.term_id, count(*) as n from cal_added i
            join cal_event e on e.id = i.event_id
            where e.status = 'publish' group by i.term_id) c), '[]'));
        return null;
      end $$`.execute(db)
    await sql`create function cal_event_term_deleted() returns trigger language plpgsql as $$
      begin
        perform cal_term_count_add(coalesce((
          select jsonb_agg(jsonb_build_object('term_id', term_id, 'n', -n)) from (
            select r.term_id, count(*) as n from cal_removed r
            join cal_event e on e.id = r.event_id
            where e.status = 'publish' group by r.term_id) c), '[]'));
        return null;
      end $$`.execute(db)
    await sql`create function cal_event_status_changed() returns trigger language plpgsql as $$
      begin
        perform cal_term_count_add(coalesce((
          select jsonb_agg(jsonb_build_object('term_id', term_id, 'n', n)) from (
            select et.term_id,
              sum(case when n.status = 'publish' then 1 else -1 end) as n
            from cal_new n join cal_old o on o.id = n.id
            join cal_event_term et on et.event_id = n.id
            where (n.status = 'publish') <> (o.status = 'publish')
            group by et.term_id) c), '[]'));
        return null;
      end $$`.execute(db)
    // Before the row goes (and its relations cascade away unseen): a published event deleted
    // outright takes its terms' counts down with it.
    await sql`create function cal_event_deleted() returns trigger language plpgsql as $$
      begin
        if old.status = 'publish' then
          perform cal_term_count_add(coalesce((
            select jsonb_agg(jsonb_build_object('term_id', term_id, 'n', -1))
            from cal_event_term where event_id = old.id), '[]'));
        end if;
        return old;
      end $$`.execute(db)
    await sql`create trigger cal_event_term_count_ins after insert on cal_event_term
      referencing new table as cal_added for each statement
      execute function cal_event_term_inserted()`.execute(db)
    await sql`create trigger cal_event_term_count_del after delete on cal_event_term
      referencing old table as cal_removed for each statement
      execute function cal_event_term_deleted()`.execute(db)
    await sql`create trigger cal_event_status_count after update on cal_event
      referencing old table as cal_old new table as cal_new for each statement
      execute function cal_event_status_changed()`.execute(db)
    await sql`create trigger cal_event_delete_count before delete on cal_event
      for each row execute function cal_event_deleted()`.execute(db)
    await sql`update cal_term t set count = (
        select count(*) from cal_event_term et join cal_event e on e.id = et.event_id
        where et.term_id = t.id and e.status = 'publish')`.execute(db)
  },
  async down(db: AnyDb) {
    await sql`drop trigger cal_event_delete_count on cal_event`.execute(db)
    await sql`drop trigger cal_event_status_count on cal_event`.execute(db)
    await sql`drop trigger cal_event_term_count_del on cal_event_term`.execute(db)
    await sql`drop trigger cal_event_term_count_ins on cal_event_term`.execute(db)
    for (const f of [
      'cal_event_deleted',
      'cal_event_status_changed',
      'cal_event_term_deleted',
      'cal_event_term_inserted',
    ]) {
      await sql`drop function ${sql.id(f)}()`.execute(db)
    }
    await sql`drop function cal_term_count_add(jsonb)`.execute(db)
    await sql`alter table cal_term drop column count`.execute(db)
  },
}

/**
 * PL/pgSQL keeps the plan of a parameterless query for the life of the session. Planned while
 * `cal_event` was tiny (and PGlite never analyzes on its own), the count triggers joined the
 * transition table to `cal_event` with a nested sequential scan, so a bulk load after a few
 * single writes went quadratic. The triggers now run their query through EXECUTE, planned
 * afresh with the current table sizes on every statement.
 */
const plannedTriggers: Migration = {
  async up(db: AnyDb) {
    const body = (query: string) =>
      sql.raw(`begin
        execute $q$ select cal_term_count_add(coalesce((
          select jsonb_agg(jsonb_build_object('term_id', term_id, 'n', n)) from (${query}) c),
          '[]')) $q$;
        return null;
      end`)
    await sql`create or replace function cal_event_term_inserted() returns trigger
      language plpgsql as $$ ${body(`select i.term_id, count(*) as n from cal_added i
        join cal_event e on e.id = i.event_id
        where e.status = 'publish' group by i.term_id`)} $$`.execute(db)
    await sql`create or replace function cal_event_term_deleted() returns trigger
      language plpgsql as $$ ${body(`select r.term_id, -count(*) as n from cal_removed r
        join cal_event e on e.id = r.event_id
        where e.status = 'publish' group by r.term_id`)} $$`.execute(db)
    await sql`create or replace function cal_event_status_changed() returns trigger
      language plpgsql as $$ ${body(`select et.term_id,
          sum(case when n.status = 'publish' then 1 else -1 end) as n
        from cal_new n join cal_old o on o.id = n.id
        join cal_event_term et on et.event_id = n.id
        where (n.status = 'publish') <> (o.status = 'publish')
        group by et.term_id`)} $$`.execute(db)
  },
  async down() {
    // The EXECUTE versions count the same; nothing to undo.
  },
}

/**
 * Slugs are ASCII `[a-z0-9-]`; the "C" collation orders them by code point, so the range
 * `slug >= 'base-' and slug < 'base.'` (every `base-…`) is one btree range scan whatever the
 * database's default collation. Before this, finding the taken `base-N` suffixes scanned the
 * whole table on every create.
 */
const slugCollation: Migration = {
  async up(db: AnyDb) {
    for (const table of ['cal_event', 'cal_venue', 'cal_organizer', 'cal_term']) {
      await sql`alter table ${sql.table(table)} alter column slug type text collate "C"`.execute(db)
    }
  },
  async down(db: AnyDb) {
    for (const table of ['cal_event', 'cal_venue', 'cal_organizer', 'cal_term']) {
      await sql`alter table ${sql.table(table)} alter column slug type text collate "default"`.execute(
        db,
      )
    }
  },
}

/**
 * Event search text: title, description and excerpt lowercased into one stored column, joined
 * by newlines (search words never contain white space, so no word spans two fields). One LIKE
 * per word on it costs about half of three ILIKEs on the separate columns.
 */
const searchText: Migration = {
  async up(db: AnyDb) {
    await sql`alter table cal_event add column search_text text generated always as
      (lower(title || E'\n' || description || E'\n' || excerpt)) stored`.execute(db)
  },
  async down(db: AnyDb) {
    await sql`alter table cal_event drop column search_text`.execute(db)
  },
}

/**
 * List filters that stay in one table. `term_ids` mirrors the event's `cal_event_term` rows
 * (kept by statement triggers, so every write path and the cascade of a deleted term are
 * covered) and carries a GIN index: a category or tag filter becomes `term_ids && array[...]`,
 * which PostgreSQL combines with the other indexes in one bitmap instead of probing the
 * relation table once per candidate event. An index on the duration bounds date-window scans
 * (see `earliestPossibleStart`). Where `pg_trgm` is available (PostgreSQL contrib,
 * loaded by `@kcore/db` in PGlite) a trigram index serves the search's `LIKE '%word%'`.
 */
const listIndexes: Migration = {
  async up(db: AnyDb) {
    await sql`alter table cal_event add column term_ids integer[] not null default '{}'`.execute(db)
    await sql`update cal_event e set term_ids = t.ids
      from (select event_id, array_agg(term_id order by term_id) as ids
        from cal_event_term group by event_id) t
      where t.event_id = e.id`.execute(db)
    await sql`create index cal_event_term_ids_idx on cal_event using gin (term_ids)`.execute(db)
    // The longest duration, read by every windowed list to bound its start-index scan.
    await sql`create index cal_event_duration_idx on cal_event ((end_utc - start_utc))`.execute(db)
    // Only rows whose array changes are written: the bulk path inserts events with their
    // term_ids already set, so its relation inserts cost this trigger a read, not an update.
    const refresh = (table: string) =>
      sql.raw(`begin
        execute $q$ update cal_event e set term_ids = t.ids
          from (select a.event_id, coalesce(array_agg(et.term_id order by et.term_id)
                filter (where et.term_id is not null), '{}') as ids
              from (select distinct event_id from ${table}) a
              left join cal_event_term et on et.event_id = a.event_id
              group by a.event_id) t
          where e.id = t.event_id and e.term_ids is distinct from t.ids $q$;
        return null;
      end`)
    await sql`create function cal_event_term_ids_added() returns trigger
      language plpgsql as $$ ${refresh('cal_added')} $$`.execute(db)
    await sql`create function cal_event_term_ids_removed() returns trigger
      language plpgsql as $$ ${refresh('cal_removed')} $$`.execute(db)
    await sql`create trigger cal_event_term_ids_ins after insert on cal_event_term
      referencing new table as cal_added for each statement
      execute function cal_event_term_ids_added()`.execute(db)
    await sql`create trigger cal_event_term_ids_del after delete on cal_event_term
      referencing old table as cal_removed for each statement
      execute function cal_event_term_ids_removed()`.execute(db)

    // A database without contrib still migrates; search then scans instead of using the index.
    await sql`do $$ begin
        create extension if not exists pg_trgm;
      exception when others then
        raise notice 'pg_trgm is not available (%); event search runs without its index', sqlerrm;
      end $$`.execute(db)
    await sql`do $$ begin
        if exists (select 1 from pg_extension where extname = 'pg_trgm') then
          create index cal_event_search_trgm_idx on cal_event using gin (search_text gin_trgm_ops);
        end if;
      end $$`.execute(db)
  },
  async down(db: AnyDb) {
    // pg_trgm stays: other schemas in the database may use it.
    await sql`drop index if exists cal_event_search_trgm_idx`.execute(db)
    await sql`drop index cal_event_duration_idx`.execute(db)
    await sql`drop trigger cal_event_term_ids_del on cal_event_term`.execute(db)
    await sql`drop trigger cal_event_term_ids_ins on cal_event_term`.execute(db)
    await sql`drop function cal_event_term_ids_removed()`.execute(db)
    await sql`drop function cal_event_term_ids_added()`.execute(db)
    await sql`alter table cal_event drop column term_ids`.execute(db)
  },
}

/** Every table whose rows can change what a calendar list answers. */
const CAL_TABLES = [
  'cal_event',
  'cal_event_term',
  'cal_event_organizer',
  'cal_term',
  'cal_venue',
  'cal_organizer',
]

/** The row-change triggers of the revision: name suffix, event, transition table. */
const REVISION_TRIGGERS = [
  ['insert', 'insert', 'new'],
  ['update', 'update', 'new'],
  ['delete', 'delete', 'old'],
] as const

/**
 * A data revision for caches in any process: `cal_revision.n` goes up by one in every
 * transaction that changes rows of a calendar table, whatever wrote it (store, script, psql).
 * Statement triggers mark the transaction in `cal_dirty` when their statement touched a row; a deferred constraint trigger on that mark does
 * the bump at commit, so the revision row is the last lock a writer takes (no deadlock with the
 * term-count locks) and is held only while it commits. The bump commits with the data, so a
 * reader that reads the revision before its queries never sees data older than that revision.
 */
const revision: Migration = {
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

/**
 * `cal_event.sequence`: how often the row was updated, for iCalendar's `SEQUENCE` (calendar
 * clients replace a copy only when it grows). A trigger, so every writer (repository, bulk
 * loads, scripts) counts, not only the repository's update; an update that changes nothing but
 * the `term_ids` mirror does not (every repository update also moves `modified`).
 */
const listSync: Migration = {
  async up(db: AnyDb) {
    await sql`alter table cal_event add column sequence integer not null default 0`.execute(db)
    await sql`create function cal_event_next_sequence() returns trigger language plpgsql as $$
      begin
        -- The term_ids mirror (triggers of 0006) rewrites rows when terms are linked, also
        -- right after an insert: not a revision of its own. search_text is generated later.
        if (to_jsonb(new) - 'term_ids' - 'search_text' - 'sequence')
            is distinct from (to_jsonb(old) - 'term_ids' - 'search_text' - 'sequence') then
          new.sequence := old.sequence + 1;
        end if;
        return new;
      end $$`.execute(db)
    await sql`create trigger cal_event_sequence before update on cal_event
      for each row execute function cal_event_next_sequence()`.execute(db)
  },
  async down(db: AnyDb) {
    await sql`drop trigger cal_event_sequence on cal_event`.execute(db)
    await sql`drop function cal_event_next_sequence()`.execute(db)
    await sql`alter table cal_event drop column sequence`.execute(db)
  },
}

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
const eventChangeLog: Migration = {
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

/**
 * Every change of the revision notifies {@link REVISION_CHANNEL} at commit, so a process that
 * sees every commit (PGlite) can keep the revision in memory until it moves (`revisionReads`).
 */
const revisionNotify: Migration = {
  async up(db: AnyDb) {
    await notifyOnChange(db, 'cal_revision', REVISION_CHANNEL)
  },
  async down(db: AnyDb) {
    await dropNotifyOnChange(db, 'cal_revision')
  },
}

/** The migrations of `@cal/store`, in order. Names never change once released. */
export const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_term_counts': termCounts,
  '0003_planned_triggers': plannedTriggers,
  '0004_slug_collation': slugCollation,
  '0005_event_search_text': searchText,
  '0006_event_list_indexes': listIndexes,
  '0007_revision': revision,
  '0010_list_sync': listSync,
  '0011_event_change_log': eventChangeLog,
  '0012_revision_notify': revisionNotify,
}

/** A static, in-code migration provider (no file system look-ups, works in every runtime). */
export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations
  },
}
