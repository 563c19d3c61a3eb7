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
