import { type Migration, sql } from 'kysely'
import type { AnyDb } from './any-db.js'

/**
 * PL/pgSQL keeps the plan of a parameterless query for the life of the session. Planned while
 * `cal_event` was tiny (and PGlite never analyzes on its own), the count triggers joined the
 * transition table to `cal_event` with a nested sequential scan, so a bulk load after a few
 * single writes went quadratic. The triggers now run their query through EXECUTE, planned
 * afresh with the current table sizes on every statement.
 */
export const plannedTriggers: Migration = {
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
