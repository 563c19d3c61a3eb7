import type { CalEvent, EventRelations, PostStatus } from '@cal/store'
import ical, { type ICalEventData, ICalEventStatus } from 'ical-generator'
import {
  feedSpans,
  icalTimes,
  instantTimes,
  isSeries,
  plainRecurrenceId,
} from './feed-event-times.js'
import type { RenderContext } from './render-context.js'
import { type FeedWindow, type SeriesLines, seriesLines } from './series-feed-lines.js'
import { vtimezone } from './vtimezone.js'

export type { FeedWindow } from './series-feed-lines.js'

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

/**
 * The stable UID of an event: its id on this host (ids never change or get reused). An edited
 * occurrence shares its series' UID (RFC 5545: told apart by its RECURRENCE-ID).
 */
export const eventUid = (event: CalEvent, ctx: RenderContext) =>
  `cal-event-${event.edited ? event.post_parent : event.id}@${ctx.host}`

/** Marks a RECURRENCE-ID that names its occurrence by the rules' wall time. */
const WALL_CLOCK_ID = 'X-CAL-RECURRENCE-ID:WALL-CLOCK'

/**
 * Property lines written as given, through the library's rule text (lines after DTEND, kept
 * as they are when there are several). A lone line that is not an RRULE would be taken for a
 * rule's text, so `marker`, an x-property saying what the lines are, goes with it.
 */
function rawLines(lines: string[], marker: string): string | null {
  if (lines.length === 0) return null
  if (lines.length === 1 && !lines[0]?.startsWith('RRULE:')) return [...lines, marker].join('\n')
  return lines.join('\n')
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

/** The fields of an event's VEVENT other than its times and recurrence. */
function described(
  event: CalEvent,
  relations: EventRelations,
  ctx: RenderContext,
): Omit<ICalEventData, 'start'> {
  const organizer = event.organizer_ids
    .map((id) => relations.organizers.get(id))
    .find((o) => o?.email)
  return {
    id: eventUid(event, ctx),
    sequence: event.sequence,
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
  }
}

/** A series' VEVENT, then its detached occurrences (same fields, the server's instants). */
function seriesEvents(
  series: CalEvent,
  lines: SeriesLines,
  fields: Omit<ICalEventData, 'start'>,
): ICalEventData[] {
  const own: ICalEventData = {
    ...fields,
    ...icalTimes(series),
    repeating: rawLines(lines.lines, 'X-CAL-RECURRENCE:OCCURRENCES'),
    x: lines.duration ? [['DURATION', lines.duration]] : [],
  }
  return [
    own,
    ...lines.detached.map((d) => ({
      ...fields,
      ...instantTimes(series.timezone, d.startMs, d.endMs),
      repeating: rawLines([d.recurrenceId], WALL_CLOCK_ID),
    })),
  ]
}

/**
 * An RFC 5545 calendar of `events` (already filtered, ordered and bounded by the caller):
 * one VEVENT each, a VTIMEZONE for each zone used, all-day events as `VALUE=DATE`. A
 * password-protected event never carries its description or excerpt here: feeds are shared
 * and cached by calendar apps, whoever fetched them. `window` is the list's date window: a
 * series is written so that readers expanding it over the window get the server's
 * occurrences (`seriesLines`).
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
  const series = new Map<number, SeriesLines>()
  for (const event of events) {
    if (isSeries(event)) {
      series.set(event.id, seriesLines(event, window, carried.get(event.id) ?? new Set()))
    }
  }
  for (const event of events) {
    const fields = described(event, relations, ctx)
    // An edit of a series' first occurrence has the series' id: only the series is its lines.
    const lines = isSeries(event) ? series.get(event.id) : undefined
    if (lines) {
      for (const data of seriesEvents(event, lines, fields)) calendar.createEvent(data)
      continue
    }
    if (!event.edited || !event.occurrence_start) {
      calendar.createEvent({ ...fields, ...icalTimes(event) })
      continue
    }
    // An edited occurrence names its occurrence as its series wrote it.
    const id = series
      .get(event.post_parent ?? 0)
      ?.recurrenceIds.get(event.occurrence_start.getTime())
    calendar.createEvent({
      ...fields,
      ...icalTimes(event),
      ...(id ? { repeating: rawLines([id], WALL_CLOCK_ID) } : plainRecurrenceId(event)),
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
