import type { CalEvent, EventRelations } from '@cal/store'
import ICAL from 'ical.js'
import type { RenderContext } from '../src/cal/render-context.js'

/** A render context for feeds built outside a request. */
export const FEED_CONTEXT: RenderContext = {
  origin: 'http://cal.test',
  host: 'cal.test',
  restBase: 'http://cal.test/cal/events/v1',
  timezone: 'UTC',
  privileged: false,
}

export const NO_RELATIONS: EventRelations = {
  venues: new Map(),
  organizers: new Map(),
  terms: new Map(),
}

/** A single event as the store lists it: `start`/`end` instants in `timezone`. */
export function calEvent(id: number, start: Date, end: Date, timezone: string): CalEvent {
  return {
    id,
    author: 1,
    status: 'publish',
    created: new Date(Date.UTC(2026, 0, 1)),
    modified: new Date(Date.UTC(2026, 0, 1)),
    sequence: 0,
    title: `Event ${id}`,
    description: '',
    excerpt: '',
    slug: `event-${id}`,
    image: null,
    all_day: false,
    start,
    end,
    timezone,
    cost: null,
    website: null,
    show_map: false,
    show_map_link: false,
    hide_from_listings: false,
    sticky: false,
    featured: false,
    ticketed: false,
    post_parent: null,
    password_protected: false,
    venue_id: null,
    organizer_ids: [],
    category_ids: [],
    tag_ids: [],
    recurrence: null,
    occurrence_start: null,
    edited: false,
  }
}

/**
 * Each VEVENT of a feed as ical.js reads it, against the feed's own VTIMEZONEs (ical.js looks
 * a TZID up in the calendar it is parsing): UID, and DTSTART/DTEND as instants (epoch ms).
 */
export function readFeed(feed: string) {
  const root = new ICAL.Component(ICAL.parse(feed))
  return root.getAllSubcomponents('vevent').map((component) => {
    const event = new ICAL.Event(component)
    return {
      uid: event.uid,
      startMs: event.startDate.toJSDate().getTime(),
      endMs: event.endDate.toJSDate().getTime(),
      tzid: component.getFirstProperty('dtstart')?.getParameter('tzid') as string | undefined,
    }
  })
}

/** One occurrence of a feed as ical.js expands it. */
export interface FeedOccurrence {
  uid: string
  title: string
  startMs: number
  endMs: number
  /** `YYYY-MM-DD` for an all-day occurrence (a floating date: compared as a date). */
  date?: string
}

/**
 * Occurrences of a feed overlapping [fromMs, toMs] as ical.js gives them: each master's set
 * expanded by its iterator (RRULE, RDATE, EXDATE), its end the start plus the master's
 * duration as ical.js adds it, an exception (same UID, RECURRENCE-ID) replacing the occurrence
 * it names. Exceptions are looked up by UID and instant (`relateException` keys them by time
 * alone, so two series' exceptions on one date would collide).
 */
export function expandFeed(feed: string, fromMs: number, toMs: number): FeedOccurrence[] {
  const root = new ICAL.Component(ICAL.parse(feed))
  const masters: ICAL.Event[] = []
  const singles: ICAL.Event[] = []
  const exceptions = new Map<string, ICAL.Event>()
  const instant = (time: ICAL.Time) => time.toJSDate().getTime()
  for (const c of root.getAllSubcomponents('vevent')) {
    const event = new ICAL.Event(c)
    if (c.hasProperty('recurrence-id')) {
      exceptions.set(`${event.uid} ${instant(event.recurrenceId)}`, event)
    } else if (event.isRecurring()) masters.push(event)
    else singles.push(event)
  }
  const out: FeedOccurrence[] = []
  const add = (event: ICAL.Event, start: ICAL.Time, end: ICAL.Time) => {
    const s = instant(start)
    // All-day DTEND is the next day: the list's end is 23:59:59 of the last day.
    const e = start.isDate ? instant(end) - 1000 : instant(end)
    if (e < fromMs || s > toMs) return
    out.push({
      uid: event.uid,
      title: event.summary,
      startMs: s,
      endMs: e,
      ...(start.isDate && { date: start.toString() }),
    })
  }
  for (const e of singles) add(e, e.startDate, e.endDate)
  const used = new Set<string>()
  for (const master of masters) {
    const it = master.iterator()
    let n = 0
    for (let next = it.next(); next; next = it.next()) {
      // Past the window by a year: no moved exception can come back into it.
      if (instant(next) > toMs + 366 * 86_400_000 || ++n > 200_000) break
      const key = `${master.uid} ${instant(next)}`
      const exception = exceptions.get(key)
      if (exception) {
        used.add(key)
        add(exception, exception.startDate, exception.endDate)
        continue
      }
      const end = next.clone()
      end.addDuration(master.duration)
      add(master, next, end)
    }
  }
  // An exception of no occurrence of a master stands alone.
  for (const [key, e] of exceptions) if (!used.has(key)) add(e, e.startDate, e.endDate)
  return out.sort((a, b) => a.startMs - b.startMs || a.title.localeCompare(b.title))
}
