import { sql } from 'kysely'
import { CalInTrashError, CalNotFoundError } from './errors.js'
import { EVENT_COLUMNS, type EventRow } from './event-rows.js'
import { deletedOccurrence, firstKey, seriesRecurrence } from './occurrence-read.js'
import { occurrenceId } from './series-ids.js'
import type { Occurrence } from './series-recurrence.js'
import { slugify } from './slug.js'
import { allocateSlug } from './slug-allocation.js'
import type { CalDb } from './store-context.js'
import { timestampParam } from './timestamp-param.js'
import { WriteConflict } from './transact.js'

/** The public id of occurrence `key` of a series (its own id for its first occurrence). */
const publicId = (series: EventRow, key: number) =>
  key === firstKey(series) ? series.id : occurrenceId(series.series_slot as number, key)

/** The override row of (series, key), locked, if there is one. */
export function overrideOf(
  trx: CalDb,
  seriesId: number,
  key: number,
): Promise<EventRow | undefined> {
  return trx
    .selectFrom('cal_event')
    .select(EVENT_COLUMNS)
    .where('post_parent', '=', seriesId)
    .where('occurrence_key', '=', key)
    .forUpdate()
    .executeTakeFirst()
}

/**
 * The occurrence `key` of a locked series: in the trash when an exception date removed it
 * (`CalInTrashError`, unless `deleted`: then that occurrence, for a write on the whole
 * series), else not found when the rule has none there now.
 */
export function occurrenceOf(
  series: EventRow,
  key: number,
  id: number,
  options: { deleted?: boolean } = {},
): Occurrence {
  const occurrence = seriesRecurrence(series).byKey(key)
  if (occurrence) return occurrence
  const deleted = deletedOccurrence(series, key)
  if (!deleted) throw new CalNotFoundError('event', id)
  if (!options.deleted) throw new CalInTrashError('event', id)
  return deleted
}

/**
 * One statement: a copy of the series row as the override of `occurrence` (its own times and
 * `slug`), with the series' organizers and terms, or nothing when a unique index says no (the
 * slug is taken, or a concurrent edit of the same occurrence made its override first). The
 * occurrence answered before its row existed: noted in the feed as it was (status before and
 * after the series'), ahead of the insert trigger's note (statement triggers fire at the
 * statement's end), so the feed and the webhooks report it `updated`, not `created` (issue 47).
 */
async function insertOverrideRow(
  trx: CalDb,
  now: Date,
  series: EventRow,
  occurrence: Occurrence,
  slug: string,
): Promise<EventRow | undefined> {
  const start = timestampParam(new Date(occurrence.startMs))
  const end = timestampParam(new Date(occurrence.endMs))
  const { rows } = await sql<EventRow>`with o as (insert into cal_event (author, status, created,
      modified, title, description, excerpt, slug, image, all_day, start_utc, end_utc, timezone,
      cost, website, show_map, show_map_link, hide_from_listings, sticky, featured, ticketed,
      post_parent, password_hash, venue_id, term_ids, occurrence_key, occurrence_id,
      occurrence_start)
    select author, status, created, ${now}, title, description, excerpt, ${slug}, image, all_day,
      ${start}, ${end}, timezone, cost, website, show_map, show_map_link, hide_from_listings,
      sticky, featured, ticketed, id, password_hash, venue_id, term_ids,
      ${occurrence.key}::bigint, ${publicId(series, occurrence.key)}::bigint, ${start}
    from cal_event where id = ${series.id}
    on conflict do nothing
    returning ${sql.join(EVENT_COLUMNS.map((c) => sql.ref(c)))}),
  organizers as (insert into cal_event_organizer (event_id, organizer_id, position)
    select o.id, x.organizer_id, x.position from o, cal_event_organizer x
    where x.event_id = ${series.id}),
  noted as (insert into cal_change (xid, kind, record_id, before_status, after_status, modified)
    select pg_current_xact_id()::text, 'event', o.occurrence_id, o.status, o.status, o.modified
    from o),
  terms as (insert into cal_event_term (event_id, term_id)
    select o.id, x.term_id from o, cal_event_term x where x.event_id = ${series.id})
  select * from o`.execute(trx)
  return rows[0]
}

/**
 * The override of `occurrence`, made from the series row, or the one a concurrent write of
 * the same occurrence made first. Its slug `<series>-<date>` is tried as it is (no other
 * record has it, nearly always), and allocated under the slug lock only when taken.
 */
export async function insertOverride(
  trx: CalDb,
  now: Date,
  series: EventRow,
  occurrence: Occurrence,
): Promise<EventRow> {
  const base = slugify(`${series.slug} ${occurrence.start}`, 'event')
  const made = await insertOverrideRow(trx, now, series, occurrence, base)
  if (made) return made
  const existing = await overrideOf(trx, series.id, occurrence.key)
  if (existing) return existing
  const slug = await allocateSlug(trx, 'cal_event', base)
  const again = await insertOverrideRow(trx, now, series, occurrence, slug)
  // Under the slug lock only an optimistic writer of another record can still take it.
  if (!again) throw new WriteConflict(`slug ${slug} was taken meanwhile`)
  return again
}

/** The organizers, categories and tags of event `from`, given to event `to`. */
export async function copyRelations(trx: CalDb, from: number, to: number): Promise<void> {
  await sql`with organizers as (insert into cal_event_organizer (event_id, organizer_id, position)
      select ${to}::integer, organizer_id, position from cal_event_organizer
      where event_id = ${from})
    insert into cal_event_term (event_id, term_id)
    select ${to}::integer, term_id from cal_event_term where event_id = ${from}`.execute(trx)
}
