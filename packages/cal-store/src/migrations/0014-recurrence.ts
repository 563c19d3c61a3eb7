import { type Migration, sql } from 'kysely'
import { createFeedTriggers, createLinkChangeFunction } from './0013-changes-feed.js'
import type { AnyDb } from './any-db.js'

/** An event's public id in the feed: an edited occurrence's `occurrence_id`, else its row id. */
const EVENT_ID = 'coalesce(r.occurrence_id, r.id)'

/** Largest series slot: slot · 2^33 + key stays below 2^53 (`series-ids.ts`). */
export const MAX_SERIES_SLOT = 2 ** 20 - 1

/**
 * Recurring series (issue #29). A series is an ordinary `cal_event` row (its id is the series'
 * id and its first occurrence's) with its `recurrence` (the normalised rules, rdates and
 * exdates as JSON text) and a `series_slot` from its own sequence: occurrence ids are
 * `slot · 2^33 + key`, decoded back to (series, key) by the slot's unique index. An edited
 * occurrence (an override) is a `cal_event` row of its own: `post_parent` = the series,
 * `occurrence_key` = the occurrence's key, `occurrence_id` = its public id, `occurrence_start` = the occurrence's original start (its
 * RECURRENCE-ID); every list filter
 * applies to it as to any event. The partial index keeps "which rows are series" one probe.
 */
export const recurrence: Migration = {
  async up(db: AnyDb) {
    await sql`create sequence cal_series_slot_seq minvalue 1 maxvalue ${sql.lit(MAX_SERIES_SLOT)}`.execute(
      db,
    )
    await sql`alter table cal_event
      add column recurrence text,
      add column series_slot integer,
      add column occurrence_key bigint,
      add column occurrence_id bigint,
      add column occurrence_start timestamptz`.execute(db)
    await sql`alter table cal_event
      add constraint cal_event_series_slot_uq unique (series_slot),
      add constraint cal_event_occurrence_id_uq unique (occurrence_id),
      add constraint cal_event_series_check check ((recurrence is null) = (series_slot is null)),
      add constraint cal_event_override_check check (
        (occurrence_key is null) = (occurrence_id is null)
        and (occurrence_key is null) = (occurrence_start is null)
        and (occurrence_key is null or (recurrence is null and post_parent is not null)))`.execute(
      db,
    )
    await sql`create unique index cal_event_override_uq on cal_event (post_parent, occurrence_key)
      where occurrence_key is not null`.execute(db)
    await sql`create index cal_event_series_idx on cal_event (id)
      where recurrence is not null`.execute(db)
    // The changes feed names an edited occurrence by its public id, not its row id.
    await createFeedTriggers(db, 'cal_event', `'event'`, 'r.status', 'r.modified', EVENT_ID)
    await createLinkChangeFunction(db, EVENT_ID.replaceAll('r.', 'e.'))
  },
  async down(db: AnyDb) {
    await createFeedTriggers(db, 'cal_event', `'event'`, 'r.status', 'r.modified')
    await createLinkChangeFunction(db)
    await sql`drop index cal_event_series_idx`.execute(db)
    await sql`drop index cal_event_override_uq`.execute(db)
    await sql`alter table cal_event
      drop constraint cal_event_override_check,
      drop constraint cal_event_series_check,
      drop constraint cal_event_occurrence_id_uq,
      drop constraint cal_event_series_slot_uq,
      drop column occurrence_start,
      drop column occurrence_id,
      drop column occurrence_key,
      drop column series_slot,
      drop column recurrence`.execute(db)
    await sql`drop sequence cal_series_slot_seq`.execute(db)
  },
}
