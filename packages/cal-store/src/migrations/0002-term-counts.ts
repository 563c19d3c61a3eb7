import { type Migration, sql } from 'kysely'
import type { AnyDb } from './any-db.js'

/**
 * Stored term counts (published events per term), kept right by statement-level triggers with
 * transition tables, so reading a term never counts events. Every path is covered: relations
 * added or removed, an event's status moving into or out of `publish`, an event deleted
 * outright. Term rows are locked (FOR NO KEY UPDATE, which foreign-key checks do not block) in
 * id order before their counts change, so concurrent writers touching the same terms queue
 * instead of deadlocking.
 */
export const termCounts: Migration = {
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
