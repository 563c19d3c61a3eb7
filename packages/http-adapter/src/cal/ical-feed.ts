import type { CalEvent, PostStatus } from '@cal/store'
import ical, { type ICalEventData, ICalEventStatus } from 'ical-generator'
import { Temporal } from 'temporal-polyfill'
import { tzlib_get_ical_block, tzlib_get_timezones } from 'timezones-ical-library'
import type { RenderContext } from './render-context.js'
import type { EventRelations } from './render-event.js'

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

/** The stable UID of an event: its id on this host (ids never change or get reused). */
export const eventUid = (event: CalEvent, ctx: RenderContext) => `cal-event-${event.id}@${ctx.host}`

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
  for (const event of events) {
    const organizer = event.organizer_ids
      .map((id) => relations.organizers.get(id))
      .find((o) => o?.email)
    calendar.createEvent({
      id: eventUid(event, ctx),
      sequence: event.sequence,
      ...times(event),
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
