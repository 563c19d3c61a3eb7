import { sql } from 'kysely'
import {
  CalInTrashError,
  CalNotFoundError,
  CalStaleReadError,
  CalValidationError,
} from './errors.js'
import type { CalEvent, EventPatch, SeriesScope } from './event.js'
import { EVENT_COLUMNS, type EventRow, readEvents } from './event-rows.js'
import { patchEvent } from './event-write.js'
import { validIds } from './id-list.js'
import { firstKey, readEventsById, seriesRecurrence } from './occurrence-read.js'
import { decodeOccurrenceId, occurrenceId } from './series-ids.js'
import { carryToOverrides, nextSeriesSlot } from './series-overrides.js'
import {
  compileGiven,
  type Occurrence,
  parseRecurrence,
  type RecurrenceInput,
  recurrenceText,
  type SeriesShape,
} from './series-recurrence.js'
import { splitRecurrence } from './series-split.js'
import { slugify } from './slug.js'
import { allocateSlug } from './slug-allocation.js'
import type { CalDb } from './store-context.js'
import { fromLocalDateTime, toLocalDateTime } from './time-zone.js'
import { timestampParam } from './timestamp-param.js'
import { noteRemovedOccurrences } from './transaction-changes.js'

/** What a write on a public id acts on: a row of its own, or an occurrence of a series. */
type Target = { row: number } | { series: number; key: number }

/**
 * Resolves the public id of a write: a single event's row, or (series, key) for a series' own
 * id (its first occurrence) or an occurrence id. An override's row id and an unknown id are
 * not found. Read without a lock: the write locks the series and checks again.
 */
async function targetOf(trx: CalDb, id: number): Promise<Target> {
  const decoded = decodeOccurrenceId(id)
  const columns = trx
    .selectFrom('cal_event')
    .select(['id', 'recurrence', 'occurrence_key', 'start_utc', 'end_utc', 'timezone', 'all_day'])
  const row = decoded
    ? await columns.where('series_slot', '=', decoded.slot).executeTakeFirst()
    : validIds([id]).length
      ? await columns.where('id', '=', id).executeTakeFirst()
      : undefined
  if (!row || row.occurrence_key !== null) throw new CalNotFoundError('event', id)
  if (row.recurrence === null) return { row: row.id }
  const first = firstKey(row)
  // The first occurrence has one name: the series' id.
  if (decoded && decoded.key === first) throw new CalNotFoundError('event', id)
  return { series: row.id, key: decoded ? decoded.key : first }
}

/** The series row, locked (`share`: edits of single occurrences run side by side). */
async function lockSeries(trx: CalDb, id: number, share: boolean): Promise<EventRow> {
  const q = trx.selectFrom('cal_event').select(EVENT_COLUMNS).where('id', '=', id)
  const row = await (share ? q.forShare() : q.forUpdate()).executeTakeFirst()
  // A concurrent write made it a single event (or the id was never a series).
  if (!row || row.recurrence === null) throw new CalNotFoundError('event', id)
  return row
}

const shapeOf = (row: EventRow): SeriesShape => ({
  start: row.start_utc,
  end: row.end_utc,
  timezone: row.timezone,
  all_day: row.all_day,
})

/** The public id of occurrence `key` of a series (its own id for its first occurrence). */
const publicId = (series: EventRow, key: number) =>
  key === firstKey(series) ? series.id : occurrenceId(series.series_slot as number, key)

/** The override row of (series, key), locked, if there is one. */
function overrideOf(trx: CalDb, seriesId: number, key: number) {
  return trx
    .selectFrom('cal_event')
    .select(['id', 'sequence'])
    .where('post_parent', '=', seriesId)
    .where('occurrence_key', '=', key)
    .forUpdate()
    .executeTakeFirst()
}

/** The occurrence `key` of a locked series, or not found (the rule has none there now). */
function occurrenceOf(series: EventRow, key: number, id: number): Occurrence {
  const occurrence = seriesRecurrence(series).byKey(key)
  if (!occurrence) throw new CalNotFoundError('event', id)
  return occurrence
}

/**
 * A copy of the series row as the override of occurrence `occurrence` (its own times, slug
 * and relations), or the row a concurrent write of the same occurrence made first.
 */
async function insertOverride(
  trx: CalDb,
  now: Date,
  series: EventRow,
  occurrence: Occurrence,
): Promise<number> {
  const slug = await allocateSlug(
    trx,
    'cal_event',
    slugify(`${series.slug} ${occurrence.start}`, 'event'),
  )
  const start = timestampParam(new Date(occurrence.startMs))
  const end = timestampParam(new Date(occurrence.endMs))
  const { rows } = await sql<{ id: number }>`insert into cal_event (author, status, created,
      modified, title, description, excerpt, slug, image, all_day, start_utc, end_utc, timezone,
      cost, website, show_map, show_map_link, hide_from_listings, sticky, featured, ticketed,
      post_parent, password_hash, venue_id, occurrence_key, occurrence_id, occurrence_start)
    select author, status, created, ${now}, title, description, excerpt, ${slug}, image, all_day,
      ${start}, ${end}, timezone, cost, website, show_map, show_map_link, hide_from_listings,
      sticky, featured, ticketed, id, password_hash, venue_id, ${occurrence.key}::bigint,
      ${publicId(series, occurrence.key)}::bigint, ${start}
    from cal_event where id = ${series.id}
    on conflict (post_parent, occurrence_key) where occurrence_key is not null do nothing
    returning id`.execute(trx)
  const id = rows[0]?.id
  if (id === undefined) {
    const existing = await overrideOf(trx, series.id, occurrence.key)
    return (existing as { id: number }).id
  }
  await copyRelations(trx, series.id, id)
  return id
}

/** The organizers, categories and tags of event `from`, given to event `to`. */
async function copyRelations(trx: CalDb, from: number, to: number): Promise<void> {
  await sql`insert into cal_event_organizer (event_id, organizer_id, position)
    select ${to}::integer, organizer_id, position from cal_event_organizer
    where event_id = ${from}`.execute(trx)
  await sql`insert into cal_event_term (event_id, term_id)
    select ${to}::integer, term_id from cal_event_term where event_id = ${from}`.execute(trx)
}

/** `instant` moved by the wall-clock distance from `from` to `to` (all read in `zone`). */
function shiftWall(instant: Date, zone: string, from: Date, to: Date, field: string): Date {
  const wallMs = (at: Date) => {
    const w = toLocalDateTime(at, zone)
    return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second)
  }
  const moved = new Date(wallMs(instant) + wallMs(to) - wallMs(from))
  return fromLocalDateTime(
    {
      year: moved.getUTCFullYear(),
      month: moved.getUTCMonth() + 1,
      day: moved.getUTCDate(),
      hour: moved.getUTCHours(),
      minute: moved.getUTCMinutes(),
      second: moved.getUTCSeconds(),
    },
    zone,
    field,
  )
}

/** What an update of a public id answers: the id to read back and the dropped overrides. */
export interface UpdateResult {
  id: number
  dropped: number[]
}

/**
 * Updates the event with public id `id` inside `trx`: a single event's row as it is; an
 * occurrence by `scope` (default `this`, or `all` when the patch changes the rule).
 */
export async function updateEvent(
  trx: CalDb,
  now: Date,
  id: number,
  patch: EventPatch,
  passwordHash: string | null | undefined,
  options: { ifSequence?: number; scope?: SeriesScope } = {},
): Promise<UpdateResult> {
  const target = await targetOf(trx, id)
  if ('row' in target) {
    const dropped = await patchEvent(trx, now, target.row, patch, passwordHash, options.ifSequence)
    return { id, dropped }
  }
  const scope = options.scope ?? (patch.recurrence !== undefined ? 'all' : 'this')
  if (scope === 'this') {
    if (patch.recurrence !== undefined) {
      throw new CalValidationError(
        'recurrence',
        'scope=this edits one occurrence, which has no rule of its own (use scope=all or following)',
      )
    }
    const series = await lockSeries(trx, target.series, true)
    const override = await overrideOf(trx, series.id, target.key)
    const occurrence = override ? undefined : occurrenceOf(series, target.key, id)
    const read = override ?? series
    if (options.ifSequence !== undefined && read.sequence !== options.ifSequence) {
      throw new CalStaleReadError(id, options.ifSequence, read.sequence)
    }
    const row = override
      ? override.id
      : await insertOverride(trx, now, series, occurrence as Occurrence)
    await patchEvent(trx, now, row, patch, passwordHash)
    return { id, dropped: [] }
  }
  const series = await lockSeries(trx, target.series, false)
  const occurrence = occurrenceOf(series, target.key, id)
  if (scope === 'all' || target.key === firstKey(series)) {
    const seriesPatch = { ...patch }
    // Times given for this occurrence move every one by as much (wall clock).
    if (patch.start) {
      const from = new Date(occurrence.startMs)
      seriesPatch.start = shiftWall(
        series.start_utc,
        series.timezone,
        from,
        patch.start,
        'start_date',
      )
    }
    if (patch.end) {
      const from = new Date(occurrence.endMs)
      seriesPatch.end = shiftWall(series.end_utc, series.timezone, from, patch.end, 'end_date')
    }
    const dropped = await patchEvent(trx, now, series.id, seriesPatch, passwordHash)
    const moved = seriesPatch.start !== undefined || patch.recurrence !== undefined
    return { id: moved ? series.id : id, dropped }
  }
  return splitSeries(trx, now, series, occurrence, patch, passwordHash)
}

/**
 * "This and following": the series ends before `occurrence`; a new series (a copy of the row,
 * its own slot and slug) starts there with the rest of the rule and takes the overrides from
 * there on (renamed to its ids), then gets `patch`. Answers the new series' id.
 */
async function splitSeries(
  trx: CalDb,
  now: Date,
  series: EventRow,
  occurrence: Occurrence,
  patch: EventPatch,
  passwordHash: string | null | undefined,
): Promise<UpdateResult> {
  const input = parseRecurrence(series.recurrence as string)
  const { before, after } = splitRecurrence(input, shapeOf(series), occurrence)
  await cutSeries(trx, now, series, before)
  const slot = after ? await nextSeriesSlot(trx) : null
  const slug = await allocateSlug(trx, 'cal_event', slugify(series.slug, 'event'))
  const start = timestampParam(new Date(occurrence.startMs))
  const end = timestampParam(new Date(occurrence.endMs))
  const { rows } = await sql<{ id: number }>`insert into cal_event (author, status, created,
      modified, title, description, excerpt, slug, image, all_day, start_utc, end_utc, timezone,
      cost, website, show_map, show_map_link, hide_from_listings, sticky, featured, ticketed,
      post_parent, password_hash, venue_id, recurrence, series_slot)
    select author, status, ${now}, ${now}, title, description, excerpt, ${slug}, image, all_day,
      ${start}, ${end}, timezone, cost, website, show_map, show_map_link, hide_from_listings,
      sticky, featured, ticketed, post_parent, password_hash, venue_id,
      ${after ? JSON.stringify(after) : null}, ${slot}::integer
    from cal_event where id = ${series.id} returning id`.execute(trx)
  const id = (rows[0] as { id: number }).id
  await copyRelations(trx, series.id, id)
  // The overrides from the cut on belong to the new series, under its ids.
  const moved = await trx
    .selectFrom('cal_event')
    .select(['id', 'occurrence_key'])
    .where('post_parent', '=', series.id)
    .where('occurrence_key', 'is not', null)
    .where('occurrence_start', '>=', start)
    .execute()
  const dropped: number[] = []
  if (moved.length) {
    const newFirst = occurrence.key
    if (slot === null) {
      const gone = await trx
        .deleteFrom('cal_event')
        .where(
          'id',
          'in',
          moved.map((m) => m.id),
        )
        .returning('occurrence_id')
        .execute()
      dropped.push(...gone.map((g) => Number(g.occurrence_id)))
    } else {
      for (const m of moved) {
        const key = Number(m.occurrence_key)
        await trx
          .updateTable('cal_event')
          .set({ post_parent: id, occurrence_id: key === newFirst ? id : occurrenceId(slot, key) })
          .where('id', '=', m.id)
          .execute()
      }
    }
  }
  dropped.push(
    ...(await patchEvent(trx, now, id, { ...patch, recurrence: undefined }, passwordHash)),
  )
  if (patch.recurrence !== undefined) {
    dropped.push(...(await patchEvent(trx, now, id, { recurrence: patch.recurrence }, undefined)))
  }
  return { id, dropped }
}

/** Writes `input` as the (shorter) rule of a locked series, checked by the core first. */
async function cutSeries(
  trx: CalDb,
  now: Date,
  series: EventRow,
  input: RecurrenceInput,
): Promise<void> {
  const recurrence = compileGiven(input, shapeOf(series))
  await trx
    .updateTable('cal_event')
    .set({ recurrence: recurrenceText(recurrence), modified: now })
    .where('id', '=', series.id)
    .execute()
}

/**
 * Deletes the event with public id `id` inside `trx`, answering the record as it was, with
 * status `trash`. A single event, or a whole series (`scope=all`), goes to the trash with its
 * overrides; `this` occurrence becomes an exception date of its series (its override, if
 * any, is deleted); `following` ends the series before the occurrence.
 */
export async function trashEvent(
  trx: CalDb,
  now: Date,
  id: number,
  scope: SeriesScope = 'this',
): Promise<CalEvent> {
  const target = await targetOf(trx, id)
  const seriesId = 'row' in target ? target.row : target.series
  const trashWhole = async () => {
    const current = await trx
      .selectFrom('cal_event')
      .select(EVENT_COLUMNS)
      .where('id', '=', seriesId)
      .forUpdate()
      .executeTakeFirstOrThrow()
    if (current.status === 'trash') throw new CalInTrashError('event', id)
    await trx
      .updateTable('cal_event')
      .set({ status: 'trash', modified: now })
      .where('id', '=', seriesId)
      .execute()
    if (current.recurrence !== null) {
      await carryToOverrides(trx, current, { status: 'trash', modified: now })
    }
    const [event] = await readEventsById(trx, [seriesId])
    return event ?? { ...(await readSeriesRecord(trx, seriesId)), status: 'trash' as const }
  }
  if ('row' in target) return trashWhole()
  const series = await lockSeries(trx, target.series, false)
  if (series.status === 'trash') throw new CalInTrashError('event', id)
  if (scope === 'all' || (scope === 'following' && target.key === firstKey(series))) {
    return trashWhole()
  }
  const occurrence = occurrenceOf(series, target.key, id)
  const [before] = await readEventsById(trx, [id])
  const input = parseRecurrence(series.recurrence as string)
  if (scope === 'this') {
    const wall = series.all_day ? occurrence.start.slice(0, 10) : occurrence.start
    await cutSeries(trx, now, series, { ...input, exdates: [...(input.exdates ?? []), wall] })
    await trx
      .deleteFrom('cal_event')
      .where('post_parent', '=', series.id)
      .where('occurrence_key', '=', target.key)
      .execute()
    await noteRemovedOccurrences(trx, [id], series.status)
  } else {
    const { before: kept } = splitRecurrence(input, shapeOf(series), occurrence)
    await cutSeries(trx, now, series, kept)
    await trx
      .deleteFrom('cal_event')
      .where('post_parent', '=', series.id)
      .where('occurrence_key', 'is not', null)
      .where('occurrence_start', '>=', timestampParam(new Date(occurrence.startMs)))
      .execute()
    // Its edited occurrences' rows say so themselves; the later plain ones go with the series'
    // update (they are not enumerated: an infinite rule has no end).
    await noteRemovedOccurrences(trx, [id], series.status)
  }
  return { ...(before as CalEvent), status: 'trash' }
}

/** The series row's own record (its first occurrence may be an exception date). */
async function readSeriesRecord(trx: CalDb, id: number): Promise<CalEvent> {
  const [event] = await readEvents(trx, [id])
  if (!event) throw new CalNotFoundError('event', id)
  return event
}
