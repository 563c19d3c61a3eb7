import { type CalEvent, type EventRelations, type PostStatus, toLocalDateTime } from '@cal/store'
import ical, { type ICalEventData, ICalEventStatus } from 'ical-generator'
import { Temporal } from 'temporal-polyfill'
import { exactInZone, FeedSpans, utcStamp } from './feed-times.js'
import type { RenderContext } from './render-context.js'
import { type FeedWindow, type SeriesLines, seriesLines } from './series-feed-lines.js'
import { vtimezone } from './vtimezone.js'
import { isFixedZone, zonedAt } from './zone-transitions.js'

export type { FeedWindow } from './series-feed-lines.js'

/** Most events one feed carries (paging does not apply to feeds; the list order decides). */
export const ICAL_MAX_EVENTS = 5000

/** The iCalendar media type. */
export const ICAL_TYPE = 'text/calendar; charset=utf-8'

/** No window end: a series' rules are taken to run to here for its zone's VTIMEZONE. */
const OPEN_END_MS = Date.UTC(2200, 0, 1)

const STATUS: Record<PostStatus, ICalEventStatus> = {
  publish: ICalEventStatus.CONFIRMED,
  future: ICalEventStatus.CONFIRMED,
  private: ICalEventStatus.CONFIRMED,
  draft: ICalEventStatus.TENTATIVE,
  pending: ICalEventStatus.TENTATIVE,
  trash: ICalEventStatus.CANCELLED,
}

/**
 * The stable UID of an event: its id on this host (ids never change or get reused). An edited
 * occurrence shares its series' UID (RFC 5545: told apart by its RECURRENCE-ID).
 */
export const eventUid = (event: CalEvent, ctx: RenderContext) =>
  `cal-event-${event.edited ? event.post_parent : event.id}@${ctx.host}`

const isSeries = (event: CalEvent) => !!event.recurrence && !!event.edited_starts

/** An all-day event's day range: its first day, and the day after its last (DTEND is exclusive). */
function allDayDates(event: CalEvent) {
  const day = (at: Date) => Temporal.PlainDate.from(toLocalDateTime(at, event.timezone))
  return { start: day(event.start), end: day(event.end).add({ days: 1 }) }
}

/** True when the event's own times are written with its TZID (else as UTC instants). */
function zonedTimes(event: CalEvent): boolean {
  // UTC needs no zone; a fixed offset (`UTC+5:30`) has no TZID readers know.
  if (isFixedZone(event.timezone)) return false
  // A series' DTSTART carries its zone for its rules; an occurrence readers would misplace is
  // corrected in its lines.
  if (isSeries(event)) return true
  return (
    exactInZone(event.timezone, event.start.getTime()) &&
    exactInZone(event.timezone, event.end.getTime())
  )
}

function times(
  event: CalEvent,
  lines: SeriesLines | undefined,
): Pick<ICalEventData, 'start' | 'end' | 'allDay' | 'timezone'> {
  if (event.all_day) return { ...allDayDates(event), allDay: true }
  const end = lines?.duration ? null : event.end
  if (!zonedTimes(event)) return { start: event.start, end }
  const zoned = (at: Date) => zonedAt(event.timezone, at.getTime())
  return { start: zoned(event.start), end: end && zoned(end), timezone: event.timezone }
}

/** The RECURRENCE-ID of an edited occurrence, in the form its series wrote the occurrence in. */
function recurrenceId(
  event: CalEvent,
  utcStarts: ReadonlySet<number> | undefined,
): { recurrenceId?: ICalEventData['recurrenceId']; x?: [string, string][] } {
  const at = event.occurrence_start as Date
  if (event.all_day) {
    // A date, as the series' DTSTART (the library writes RECURRENCE-ID as a date-time only;
    // its x-properties given as pairs are written as they are).
    const day = allDayDates({ ...event, start: at, end: at })
      .start.toString()
      .replace(/-/g, '')
    return { x: [['RECURRENCE-ID;VALUE=DATE', day]] }
  }
  if (!zonedTimes(event)) return { recurrenceId: at }
  if (utcStarts?.has(at.getTime()) || !exactInZone(event.timezone, at.getTime())) {
    return { x: [['RECURRENCE-ID', utcStamp(at.getTime())]] }
  }
  return { recurrenceId: zonedAt(event.timezone, at.getTime()) }
}

/**
 * Where each zone's instants lie in the feed: every start, end and original start, and for a
 * series the window's end (its rules write occurrences up to there).
 */
function feedSpans(events: readonly CalEvent[], window: FeedWindow): FeedSpans {
  const spans = new FeedSpans()
  for (const event of events) {
    if (event.all_day || isFixedZone(event.timezone)) continue
    const starts = [event.start.getTime(), event.occurrence_start?.getTime() ?? Number.NaN]
    const from = Math.min(...starts.filter(Number.isFinite))
    const to = isSeries(event)
      ? Math.max(event.end.getTime(), window.toMs ?? OPEN_END_MS)
      : event.end.getTime()
    spans.add(event.timezone, from, Math.max(to, ...starts.filter(Number.isFinite)))
  }
  return spans
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
  window: FeedWindow = {},
): string {
  const spans = feedSpans(events, window)
  const calendar = ical({
    name,
    prodId: { company: ctx.host, product: 'cal-events', language: 'EN' },
    timezone: {
      name: null,
      generator: (zone) => {
        const span = spans.get(zone)
        return span ? vtimezone(zone, span.from, span.to) : null
      },
    },
  })
  // The edited occurrences each series' VEVENT is followed by (by original start).
  const carried = new Map<number, Set<number>>()
  for (const event of events) {
    if (!event.edited || !event.occurrence_start || event.post_parent === null) continue
    const starts = carried.get(event.post_parent) ?? new Set<number>()
    starts.add(event.occurrence_start.getTime())
    carried.set(event.post_parent, starts)
  }
  const lines = new Map<number, SeriesLines>()
  for (const event of events) {
    if (isSeries(event))
      lines.set(event.id, seriesLines(event, window, carried.get(event.id) ?? new Set()))
  }
  for (const event of events) {
    const organizer = event.organizer_ids
      .map((id) => relations.organizers.get(id))
      .find((o) => o?.email)
    const own = lines.get(event.id)
    const occurrence =
      event.edited && event.occurrence_start
        ? recurrenceId(event, lines.get(event.post_parent ?? 0)?.utcStarts)
        : {}
    calendar.createEvent({
      id: eventUid(event, ctx),
      sequence: event.sequence,
      ...times(event, own),
      ...occurrence,
      ...(own && { repeating: own.repeating || null }),
      x: [
        ...(own?.duration ? [['DURATION', own.duration] as [string, string]] : []),
        ...(occurrence.x ?? []),
      ],
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
