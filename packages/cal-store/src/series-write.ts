import { sql } from 'kysely'
import {
  CalInTrashError,
  CalNotFoundError,
  CalStaleReadError,
  CalValidationError,
} from './errors.js'
import type { CalEvent, EventPatch, SeriesScope } from './event.js'
import { type EventRow, readEvents } from './event-rows.js'
import { patchEvent } from './event-write.js'
import { lockTarget, type Target } from './lock-target.js'
import { firstKey, readEventsById } from './occurrence-read.js'
import { copyRelations, insertOverride, occurrenceOf, overrideOf } from './override-insert.js'
import { noteRemovedOccurrences } from './removed-occurrences.js'
import { noteFirstStillDeleted } from './series-id-note.js'
import { occurrenceId } from './series-ids.js'
import { carryToOverrides, nextSeriesSlot } from './series-overrides.js'
import {
  compileGiven,
  type Occurrence,
  parseRecurrence,
  type RecurrenceInput,
  recurrenceText,
  type SeriesShape,
} from './series-recurrence.js'
import { recurrenceBefore, recurrenceFrom } from './series-split.js'
import { shiftWall } from './shift-wall.js'
import { slugify } from './slug.js'
import { allocateSlug } from './slug-allocation.js'
import type { CalDb } from './store-context.js'
import { timestampParam } from './timestamp-param.js'

const shapeOf = (row: EventRow): SeriesShape => ({
  start: row.start_utc,
  end: row.end_utc,
  timezone: row.timezone,
  all_day: row.all_day,
})

/** What an update of a public id answers: the id to read back and the dropped overrides. */
export interface UpdateResult {
  id: number
  dropped: number[]
}

const thisHasNoRule = () =>
  new CalValidationError(
    'recurrence',
    'scope=this edits one occurrence, which has no rule of its own (use scope=all or following)',
  )

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
  const scope = options.scope ?? (patch.recurrence !== undefined ? 'all' : 'this')
  const target = await lockTarget(trx, id, scope === 'this')
  const result = await updateTarget(trx, now, id, target, scope, patch, passwordHash, options)
  // A `this` edit writes no series row.
  if ('series' in target && scope !== 'this') await noteFirstStillDeleted(trx, target.series)
  return result
}

/** {@link updateEvent} on its locked target. */
async function updateTarget(
  trx: CalDb,
  now: Date,
  id: number,
  target: Target,
  scope: SeriesScope,
  patch: EventPatch,
  passwordHash: string | null | undefined,
  options: { ifSequence?: number },
): Promise<UpdateResult> {
  if ('row' in target) {
    const dropped = await patchEvent(trx, now, target.row.id, patch, passwordHash, {
      ifSequence: options.ifSequence,
      current: target.row,
    })
    return { id, dropped }
  }
  const { series, key } = target
  if (scope === 'this') {
    if (patch.recurrence !== undefined) throw thisHasNoRule()
    // A deleted occurrence stays deleted (410), before any stale-read check.
    occurrenceOf(series, key, id)
    const override = await overrideOf(trx, series.id, key)
    const read = override ?? series
    if (options.ifSequence !== undefined && read.sequence !== options.ifSequence) {
      throw new CalStaleReadError(id, options.ifSequence, read.sequence)
    }
    const row = override ?? (await insertOverride(trx, now, series, occurrenceOf(series, key, id)))
    await patchEvent(trx, now, row.id, patch, passwordHash, { current: row })
    return { id, dropped: [] }
  }
  // `all` acts on the series whichever occurrence names it, a deleted one too; a split
  // cannot start at a deleted occurrence (in the trash).
  const whole = scope === 'all' || key === firstKey(series)
  const occurrence = occurrenceOf(series, key, id, { deleted: whole })
  if (whole) {
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
    const dropped = await patchEvent(trx, now, series.id, seriesPatch, passwordHash, {
      current: series,
    })
    const moved = seriesPatch.start !== undefined || patch.recurrence !== undefined
    return { id: moved ? series.id : id, dropped }
  }
  return splitSeries(trx, now, series, occurrence, patch, passwordHash)
}

/**
 * "This and following": the series ends before `occurrence`; a new series (a copy of the row,
 * its own slot and slug) starts there with the rest of the rule and takes the overrides from
 * there on (renamed to its ids), then gets `patch`. Answers the new series' id. Where no
 * series can start (`recurrenceFrom`), the 400 comes before anything is written.
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
  const start = timestampParam(new Date(occurrence.startMs))
  const end = timestampParam(new Date(occurrence.endMs))
  // The new series' rule, checked by the core against its start before anything is written.
  const after = compileGiven(recurrenceFrom(input, shapeOf(series), occurrence), {
    ...shapeOf(series),
    start: new Date(occurrence.startMs),
    end: new Date(occurrence.endMs),
  })
  await cutSeries(trx, now, series, recurrenceBefore(input, shapeOf(series), occurrence))
  const slot = await nextSeriesSlot(trx)
  const slug = await allocateSlug(trx, 'cal_event', slugify(series.slug, 'event'))
  const { rows } = await sql<{ id: number }>`insert into cal_event (author, status, created,
      modified, title, description, excerpt, slug, image, all_day, start_utc, end_utc, timezone,
      cost, website, show_map, show_map_link, hide_from_listings, sticky, featured, ticketed,
      post_parent, password_hash, venue_id, term_ids, recurrence, series_slot)
    select author, status, ${now}, ${now}, title, description, excerpt, ${slug}, image, all_day,
      ${start}, ${end}, timezone, cost, website, show_map, show_map_link, hide_from_listings,
      sticky, featured, ticketed, post_parent, password_hash, venue_id, term_ids,
      ${recurrenceText(after)}, ${slot}::integer
    from cal_event where id = ${series.id} returning id`.execute(trx)
  const id = (rows[0] as { id: number }).id
  await copyRelations(trx, series.id, id)
  // The overrides from the cut on belong to the new series, under its ids (same keys: the
  // new series has exactly those occurrences).
  await sql`update cal_event set post_parent = ${id}, occurrence_id = case
      when occurrence_key = ${occurrence.key}::bigint then ${id}::bigint
      else ${occurrenceId(slot, 0)}::bigint + occurrence_key end
    where post_parent = ${series.id} and occurrence_key is not null
      and occurrence_start >= ${start}`.execute(trx)
  const dropped: number[] = []
  dropped.push(
    ...(await patchEvent(trx, now, id, { ...patch, recurrence: undefined }, passwordHash, {})),
  )
  if (patch.recurrence !== undefined) {
    dropped.push(
      ...(await patchEvent(trx, now, id, { recurrence: patch.recurrence }, undefined, {})),
    )
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
  const target = await lockTarget(trx, id, false)
  const trashWhole = async (current: EventRow) => {
    if (current.status === 'trash') throw new CalInTrashError('event', id)
    await trx
      .updateTable('cal_event')
      .set({ status: 'trash', modified: now })
      .where('id', '=', current.id)
      .execute()
    if (current.recurrence !== null) {
      await carryToOverrides(trx, current, { status: 'trash', modified: now })
    }
    const [event] = await readEventsById(trx, [current.id])
    return event ?? { ...(await readSeriesRecord(trx, current.id)), status: 'trash' as const }
  }
  if ('row' in target) return trashWhole(target.row)
  const { series } = target
  if (series.status === 'trash') throw new CalInTrashError('event', id)
  if (scope === 'all' || (scope === 'following' && target.key === firstKey(series))) {
    return trashWhole(series)
  }
  const occurrence = occurrenceOf(series, target.key, id)
  const [before] = await readEventsById(trx, [id])
  const input = parseRecurrence(series.recurrence as string)
  if (scope === 'this') {
    // The rules' wall time, which a DST gap does not move: the moved start may be another
    // occurrence's wall (02:30 in a gap starts at 03:30, as 03:30 does).
    const wall = series.all_day ? occurrence.wall.slice(0, 10) : occurrence.wall
    await cutSeries(trx, now, series, { ...input, exdates: [...(input.exdates ?? []), wall] })
    await trx
      .deleteFrom('cal_event')
      .where('post_parent', '=', series.id)
      .where('occurrence_key', '=', target.key)
      .execute()
    await noteRemovedOccurrences(trx, [id], series.status)
  } else {
    await cutSeries(trx, now, series, recurrenceBefore(input, shapeOf(series), occurrence))
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
  await noteFirstStillDeleted(trx, series)
  return { ...(before as CalEvent), status: 'trash' }
}

/** The series row's own record (its first occurrence may be an exception date). */
async function readSeriesRecord(trx: CalDb, id: number): Promise<CalEvent> {
  const [event] = await readEvents(trx, [id])
  if (!event) throw new CalNotFoundError('event', id)
  return event
}
