import { type CalEvent, toLocalDateTime } from '@cal/store'
import type { ICalEventData } from 'ical-generator'
import { Temporal } from 'temporal-polyfill'
import { exactInZone, FeedSpans } from './feed-times.js'
import type { FeedWindow } from './series-feed-lines.js'
import { isFixedZone, zonedAt } from './zone-transitions.js'

/** No window end: a series' rules are taken to run to here for its zone's VTIMEZONE. */
const OPEN_END_MS = Date.UTC(2200, 0, 1)

type Times = Pick<ICalEventData, 'start' | 'end' | 'allDay' | 'timezone'>

/** A series' own record in a feed list (`series_rows`): its first start and its rules. */
export const isSeries = (event: CalEvent) => !!event.recurrence && !!event.edited_starts

/** An all-day event's day range: its first day, and the day after its last (DTEND is exclusive). */
function allDayDates(event: Pick<CalEvent, 'start' | 'end' | 'timezone'>) {
  const day = (at: Date) => Temporal.PlainDate.from(toLocalDateTime(at, event.timezone))
  return { start: day(event.start), end: day(event.end).add({ days: 1 }) }
}

/**
 * DTSTART/DTEND of [startMs, endMs]: with the zone's TZID when every reader reads both back as
 * written ({@link exactInZone}), else as UTC instants. UTC and the store's fixed offsets
 * (`UTC+5:30`, no TZID readers know) are always UTC.
 */
export function instantTimes(zone: string, startMs: number, endMs: number | null): Times {
  const start = new Date(startMs)
  const end = endMs === null ? null : new Date(endMs)
  const zoned =
    !isFixedZone(zone) && exactInZone(zone, startMs) && (endMs === null || exactInZone(zone, endMs))
  if (!zoned) return { start, end }
  return {
    start: zonedAt(zone, startMs),
    end: end && zonedAt(zone, endMs as number),
    timezone: zone,
  }
}

/**
 * An event's DTSTART/DTEND. All-day: dates. A series: DTSTART with its TZID, whatever reader
 * would misplace it (its rules run on the zone's wall clock; such an occurrence is detached)
 * and no DTEND (its DURATION is exact).
 */
export function icalTimes(event: CalEvent): Times {
  if (event.all_day) return { ...allDayDates(event), allDay: true }
  if (isSeries(event) && !isFixedZone(event.timezone)) {
    return { start: zonedAt(event.timezone, event.start.getTime()), timezone: event.timezone }
  }
  const end = isSeries(event) ? null : event.end.getTime()
  return instantTimes(event.timezone, event.start.getTime(), end)
}

/** An edited occurrence's RECURRENCE-ID when its series names it the usual way. */
export function plainRecurrenceId(event: CalEvent): {
  recurrenceId?: ICalEventData['recurrenceId']
  x?: [string, string][]
} {
  const at = event.occurrence_start as Date
  if (event.all_day) {
    // A date, as the series' DTSTART (the library writes RECURRENCE-ID as a date-time only;
    // its x-properties given as pairs are written as they are).
    const day = allDayDates({ ...event, start: at, end: at })
      .start.toString()
      .replace(/-/g, '')
    return { x: [['RECURRENCE-ID;VALUE=DATE', day]] }
  }
  const times = icalTimes(event)
  if (!times.timezone) return { recurrenceId: at }
  return { recurrenceId: zonedAt(event.timezone, at.getTime()) }
}

/**
 * Where each zone's instants lie in the feed: every start, end and original start, and for a
 * series the window's end (its rules write occurrences up to there).
 */
export function feedSpans(events: readonly CalEvent[], window: FeedWindow): FeedSpans {
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
