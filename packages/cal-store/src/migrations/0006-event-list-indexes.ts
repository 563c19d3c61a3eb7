import { type Migration, sql } from 'kysely'
import type { AnyDb } from './any-db.js'

/**
 * List filters that stay in one table. `term_ids` mirrors the event's `cal_event_term` rows
 * (kept by statement triggers, so every write path and the cascade of a deleted term are
 * covered) and carries a GIN index: a category or tag filter becomes `term_ids && array[...]`,
 * which PostgreSQL combines with the other indexes in one bitmap instead of probing the
 * relation table once per candidate event. An index on the duration bounds date-window scans
 * (see `earliestPossibleStart`). Where `pg_trgm` is available (PostgreSQL contrib,
 * loaded by `@kcore/db` in PGlite) a trigram index serves the search's `LIKE '%word%'`.
 */
export const listIndexes: Migration = {
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
