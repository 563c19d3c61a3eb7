import { type Migration, sql } from 'kysely'
import type { AnyDb } from './any-db.js'

/**
 * `cal_event.sequence`: how often the row was updated, for iCalendar's `SEQUENCE` (calendar
 * clients replace a copy only when it grows). A trigger, so every writer (repository, bulk
 * loads, scripts) counts, not only the repository's update; an update that changes nothing but
 * the `term_ids` mirror does not (every repository update also moves `modified`).
 */
export const listSync: Migration = {
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
