import {
  type CalEvent,
  checkRecurrence,
  type EventRelations,
  formatLocalDateTime,
  type PostStatus,
  type RecurrenceInput,
} from '@cal/store'
import ical, { type ICalEventData, ICalEventStatus } from 'ical-generator'
import { Temporal } from 'temporal-polyfill'
import { tzlib_get_ical_block, tzlib_get_timezones } from 'timezones-ical-library'
import type { RenderContext } from './render-context.js'

/** Most events one feed carries (paging does not apply to feeds; the list order decides). */
export const ICAL_MAX_EVENTS = 5000

/** The iCalendar media type. */
export const ICAL_TYPE = 'text/calendar; charset=utf-8'

const STATUS: Record<PostStatus, ICalEventStatus> = {
  publish: ICalEventStatus.CONFIRMED,
  future: ICalEventStatus.CONFIRMED,
  private: ICalEventStatus.CONFIRMED,
  draft: ICalEventStatus.TENTATIVE,
  pending: ICalEventStatus.TENTATIVE,
  trash: ICalEventStatus.CANCELLED,
}

const KNOWN_ZONES: ReadonlySet<string> = new Set(tzlib_get_timezones())

/**
 * The VTIMEZONE block of `zone`, or null when the library does not know it. The library files
 * an alias under its canonical zone (`Europe/Amsterdam` → `Europe/Brussels`, same rules), so
 * the block is renamed to the zone the events' `TZID` names.
 */
export function vtimezone(zone: string): string | null {
  // Asked only about zones it knows: for any other it writes to stderr (console.error), past
  // the host's logger, on every render.
  if (!KNOWN_ZONES.has(zone)) return null
  const block = tzlib_get_ical_block(zone)
  if (!Array.isArray(block) || typeof block[0] !== 'string') return null
  return block[0]
    .replace(/^TZID:.*$/m, `TZID:${zone}`)
    .replace(/^X-LIC-LOCATION:.*$/m, `X-LIC-LOCATION:${zone}`)
}

/**
 * The stable UID of an event: its id on this host (ids never change or get reused). An edited
 * occurrence shares its series' UID (RFC 5545: told apart by its RECURRENCE-ID).
 */
export const eventUid = (event: CalEvent, ctx: RenderContext) =>
  `cal-event-${event.edited ? event.post_parent : event.id}@${ctx.host}`

/**
 * The RRULE/RDATE/EXDATE lines of a series' own record (`series_rows`): its rules, plus an
 * EXDATE for each edited occurrence the feed does not carry (filtered out, or moved out of the
 * window), so that a client expanding the feed sees exactly the listed occurrences.
 */
function seriesLines(series: CalEvent, carried: ReadonlySet<number>): string {
  const recurrence = series.recurrence as RecurrenceInput
  const walls = (series.edited_starts ?? [])
    .filter((at) => !carried.has(at.getTime()))
    .map((at) => {
      const wall = formatLocalDateTime(at, series.timezone)
      return series.all_day ? wall.slice(0, 10) : wall
    })
  const input = { ...recurrence, exdates: [...(recurrence.exdates ?? []), ...walls] }
  const shape = {
    start: series.start,
    end: series.end,
    timezone: series.timezone,
    all_day: series.all_day,
  }
  return checkRecurrence(input, shape).icalLines().join('\n')
}

/** How an event is written: a single one, a series with its rules, or an edited occurrence. */
function recurrenceData(
  event: CalEvent,
  carried: ReadonlyMap<number, Set<number>>,
): Pick<ICalEventData, 'repeating' | 'recurrenceId' | 'x'> {
  if (event.edited && event.occurrence_start) {
    const at = event.occurrence_start
    if (event.all_day) {
      // A date, as the series' DTSTART (the library writes RECURRENCE-ID as a date-time only;
      // its x-properties given as pairs are written as they are).
      const day = allDayDates({ ...event, start: at, end: at })
        .start.toString()
        .replace(/-/g, '')
      return { x: [['RECURRENCE-ID;VALUE=DATE', day]] }
    }
    if (vtimezone(event.timezone) === null) return { recurrenceId: at }
    return {
      recurrenceId: Temporal.Instant.fromEpochMilliseconds(at.getTime()).toZonedDateTimeISO(
        event.timezone,
      ),
    }
  }
  if (event.recurrence && event.edited_starts) {
    return { repeating: seriesLines(event, carried.get(event.id) ?? new Set()) }
  }
  return {}
}

/** An all-day event's day range: its first day, and the day after its last (DTEND is exclusive). */
function allDayDates(event: CalEvent) {
  const day = (at: Date) =>
    Temporal.Instant.fromEpochMilliseconds(at.getTime())
      .toZonedDateTimeISO(event.timezone)
      .toPlainDate()
  return { start: day(event.start), end: day(event.end).add({ days: 1 }) }
}

function times(event: CalEvent): Pick<ICalEventData, 'start' | 'end' | 'allDay' | 'timezone'> {
  if (event.all_day) return { ...allDayDates(event), allDay: true }
  // Unknown to the zone library: plain UTC instants, still exact.
  if (vtimezone(event.timezone) === null) return { start: event.start, end: event.end }
  const zoned = (at: Date) =>
    Temporal.Instant.fromEpochMilliseconds(at.getTime()).toZonedDateTimeISO(event.timezone)
  return { start: zoned(event.start), end: zoned(event.end), timezone: event.timezone }
}

function location(event: CalEvent, relations: EventRelations): ICalEventData['location'] {
  const venue = event.venue_id === null ? undefined : relations.venues.get(event.venue_id)
  if (!venue) return null
  const address = [
    venue.address,
    venue.city,
    venue.province ?? venue.state,
    venue.zip,
    venue.country,
  ]
    .filter((part): part is string => !!part)
    .join(', ')
  if (venue.geo_lat !== null && venue.geo_lng !== null) {
    return { title: venue.name, address, geo: { lat: venue.geo_lat, lon: venue.geo_lng } }
  }
  return address ? `${venue.name}, ${address}` : venue.name
}

/**
 * An RFC 5545 calendar of `events` (already filtered, ordered and bounded by the caller):
 * one VEVENT each, a VTIMEZONE for each zone used, all-day events as `VALUE=DATE`. A
 * password-protected event never carries its description or excerpt here: feeds are shared
 * and cached by calendar apps, whoever fetched them.
 */
export function eventsCalendar(
  events: readonly CalEvent[],
  relations: EventRelations,
  ctx: RenderContext,
  name: string,
): string {
  const calendar = ical({
    name,
    prodId: { company: ctx.host, product: 'cal-events', language: 'EN' },
    timezone: { name: null, generator: vtimezone },
  })
  // The edited occurrences each series' VEVENT is followed by (by original start).
  const carried = new Map<number, Set<number>>()
  for (const event of events) {
    if (!event.edited || !event.occurrence_start || event.post_parent === null) continue
    const starts = carried.get(event.post_parent) ?? new Set<number>()
    starts.add(event.occurrence_start.getTime())
    carried.set(event.post_parent, starts)
  }
  for (const event of events) {
    const organizer = event.organizer_ids
      .map((id) => relations.organizers.get(id))
      .find((o) => o?.email)
    calendar.createEvent({
      id: eventUid(event, ctx),
      sequence: event.sequence,
      ...times(event),
      ...recurrenceData(event, carried),
      summary: event.title,
      description: event.password_protected ? null : event.description || null,
      location: location(event, relations),
      organizer: organizer?.email ? { name: organizer.name, email: organizer.email } : null,
      categories: event.category_ids.flatMap((id) => {
        const term = relations.terms.get(id)
        return term ? [{ name: term.name }] : []
      }),
      url: `${ctx.origin}/event/${event.slug}/`,
      created: event.created,
      lastModified: event.modified,
      stamp: event.modified,
      status: STATUS[event.status],
    })
  }
  return withoutControls(calendar.toString())
}

/**
 * RFC 5545 (3.3.11) TEXT holds no CONTROL character (%x00-08 / %x0A-1F / %x7F) but HTAB;
 * ical-generator escapes line breaks inside values as `\\n` and leaves the rest raw, so after
 * it the only CR and LF left end or fold lines. Every other control is dropped here, the one
 * place the feed's text is written, whichever field (title, description, venue, term) held it.
 */
function withoutControls(ics: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
  return ics.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
}
