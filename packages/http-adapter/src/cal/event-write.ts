import type { CalEvent, EventInput, EventPatch } from '@cal/store'
import {
  checkEventLinks,
  checkRecurrence,
  EVENT_FLAGS,
  eventTimes,
  fromLocalDateTime,
  isValidTimeZone,
  toLocalDateTime,
} from '@cal/store'
import type { EventBody } from './event-body.js'
import { toOrganizerInput } from './organizer-body.js'
import { readDateInput } from './parse-date-input.js'
import { toVenueInput } from './venue-body.js'

/**
 * Checks what can be checked without the database (before authentication, as the spec
 * orders): the store's limit on relation entries ({@link checkEventLinks}), each date a real
 * one within 1000…9999 in the zone it is read in, and the end not before the start after the
 * all-day rule (the store's {@link eventTimes}, one rule for both).
 */
export function checkEventBody(body: EventBody, serviceZone: string, now: Date): void {
  checkEventLinks({ organizers: body.organizer, categories: body.categories, tags: body.tags })
  const zone = body.timezone ?? serviceZone
  const start =
    body.start_date === undefined
      ? undefined
      : readDateInput(body.start_date, zone, now, 'start_date')
  const end =
    body.end_date === undefined ? undefined : readDateInput(body.end_date, zone, now, 'end_date')
  if (!start || !end || !isValidTimeZone(zone)) return
  const times = eventTimes(start.instant, end.instant, zone, body.all_day === true)
  // The rule is checked against the first occurrence the body gives (an update without dates
  // is checked by the store against the stored ones).
  if (body.recurrence !== undefined && body.recurrence !== null) {
    checkRecurrence(body.recurrence, { ...times, timezone: zone, all_day: body.all_day === true })
  }
}

/**
 * Whether {@link toEventPatch} of this body depends on the event as read: dates given without
 * the zone are read in the event's zone; a new zone with a date left out keeps that date's wall
 * time.
 */
export function patchReadsEvent(body: EventBody): boolean {
  const dates = [body.start_date, body.end_date].filter((d) => d !== undefined).length
  return body.timezone === undefined ? dates > 0 : dates < 2
}

/**
 * The store patch of an event body. Dates are read in the body's `timezone`, else the event's
 * current zone (updates), else the service zone. Changing only the `timezone` of an existing
 * event keeps its wall-clock times (19:00 stays 19:00 in the new zone).
 */
export function toEventPatch(
  body: EventBody,
  options: { serviceZone: string; now: Date; existing?: CalEvent },
): EventPatch {
  const { existing, serviceZone, now } = options
  const zone = body.timezone ?? existing?.timezone ?? serviceZone
  const patch: EventPatch = {}
  const copy = [
    'title',
    'description',
    'excerpt',
    'slug',
    'status',
    'author',
    'all_day',
    'cost',
    'image',
    ...EVENT_FLAGS,
    'post_parent',
    'recurrence',
  ] as const
  for (const key of copy) {
    if (body[key] !== undefined) (patch as Record<string, unknown>)[key] = body[key]
  }
  if (body.timezone !== undefined) patch.timezone = body.timezone ?? serviceZone
  if (body.website !== undefined) patch.website = body.website || null
  if (body.password !== undefined) patch.password = body.password || null
  const date = (text: string | undefined, field: string) =>
    text === undefined ? undefined : readDateInput(text, zone, now, field).instant
  const start = date(body.start_date, 'start_date')
  const end = date(body.end_date, 'end_date')
  if (start) patch.start = start
  if (end) patch.end = end
  if (existing && patch.timezone && patch.timezone !== existing.timezone) {
    // Keep wall-clock times when only the zone moves.
    // A wall time the new zone skips is refused naming the date it came from.
    const keep = (at: Date, field: string) =>
      fromLocalDateTime(toLocalDateTime(at, existing.timezone), patch.timezone as string, field)
    if (!start) patch.start = keep(existing.start, 'start_date')
    if (!end) patch.end = keep(existing.end, 'end_date')
  }
  if (body.venue !== undefined) {
    patch.venue =
      body.venue === null
        ? null
        : typeof body.venue === 'number'
          ? body.venue
          : toVenueInput(body.venue)
  }
  if (body.organizer !== undefined) {
    patch.organizers = (body.organizer ?? []).map((o) =>
      typeof o === 'number' ? o : toOrganizerInput(o),
    )
  }
  if (body.categories !== undefined) patch.categories = body.categories ?? []
  if (body.tags !== undefined) patch.tags = body.tags ?? []
  return patch
}

/** The store input of a create body (title and dates are guaranteed by the schema). */
export function toEventInput(
  body: EventBody,
  options: { serviceZone: string; now: Date },
): EventInput {
  const patch = toEventPatch(body, options)
  return {
    ...patch,
    timezone: patch.timezone ?? options.serviceZone,
  } as EventInput
}
