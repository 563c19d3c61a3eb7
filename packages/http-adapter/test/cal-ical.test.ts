import { testDatabases } from '@kcore/db/testing'
import ICAL from 'ical.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BASE, type CalHarness, openCal, TOKEN } from './cal-harness.js'

const WINDOW = 'start_date=2026-03-01&end_date=2026-12-31'

/** Fetches the raw text of a calendar answer. */
async function text(t: CalHarness, path: string, headers: Record<string, string> = {}) {
  const res = await t.handler(new Request(`${BASE}${path}`, { headers }))
  return { status: res.status, type: res.headers.get('content-type'), res, body: await res.text() }
}

/** Parses a feed with ical.js, registering its VTIMEZONEs so TZID times resolve to instants. */
function parse(feed: string) {
  const root = new ICAL.Component(ICAL.parse(feed))
  for (const zone of root.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone)
  return {
    root,
    events: root
      .getAllSubcomponents('vevent')
      .map((c) => ({ component: c, event: new ICAL.Event(c) })),
    zones: root
      .getAllSubcomponents('vtimezone')
      .map((z) => String(z.getFirstPropertyValue('tzid'))),
  }
}

describe.each(testDatabases())('iCalendar feed of the events list on $name', ({ open }) => {
  let t: CalHarness
  const ev = {} as Record<'winter' | 'summer' | 'allday' | 'utc' | 'secret', number>

  beforeAll(async () => {
    t = await openCal(open)
    const music = (await t.create('/categories', { name: 'Music' })).body.id
    const hall = (
      await t.create('/venues', {
        venue: 'Town Hall',
        address: 'Dam 1',
        city: 'Amsterdam',
        country: 'Netherlands',
        geo_lat: 52.37,
        geo_lng: 4.89,
      })
    ).body.id
    const alice = (
      await t.create('/organizers', { organizer: 'Alice', email: 'alice@example.org' })
    ).body.id
    const make = async (key: keyof typeof ev, body: Record<string, unknown>) => {
      ev[key] = (await t.create('/events', body)).body.id
    }
    // A weekly class in Amsterdam, either side of the 29 March 2026 DST change: same wall time.
    await make('winter', {
      title:
        'Class, before DST; with a comma and a long title that must fold over seventy-five octets ✓',
      start_date: '2026-03-22 19:00:00',
      end_date: '2026-03-22 21:00:00',
      timezone: 'Europe/Amsterdam',
      venue: hall,
      organizer: [alice],
      categories: [music],
      description: 'Line one\nLine two; with semicolon',
    })
    await make('summer', {
      title: 'Class, after DST',
      start_date: '2026-03-29 19:00:00',
      end_date: '2026-03-29 21:00:00',
      timezone: 'Europe/Amsterdam',
      venue: hall,
    })
    await make('allday', {
      title: 'Festival',
      start_date: '2026-04-10',
      end_date: '2026-04-12',
      all_day: true,
      timezone: 'America/New_York',
    })
    await make('utc', {
      title: 'UTC talk',
      start_date: '2026-05-01 12:00:00',
      end_date: '2026-05-01 13:00:00',
    })
    await make('secret', {
      title: 'Secret',
      start_date: '2026-05-02 12:00:00',
      end_date: '2026-05-02 13:00:00',
      description: 'Only for those with the password',
      password: 'hunter2',
    })
  })

  afterAll(async () => {
    await t?.close()
  })

  it('answers format=ics and Accept: text/calendar with the same feed; JSON otherwise', async () => {
    const byQuery = await text(t, `/events?${WINDOW}&format=ics`)
    const byAccept = await text(t, `/events?${WINDOW}`, { accept: 'text/calendar' })
    expect(byQuery.status).toBe(200)
    expect(byQuery.type).toMatch(/^text\/calendar/)
    expect(byAccept.type).toMatch(/^text\/calendar/)
    expect(byAccept.body).toBe(byQuery.body)
    expect((await text(t, `/events?${WINDOW}`, { accept: 'application/json' })).type).toMatch(
      /json/,
    )
    expect(
      (await text(t, `/events?${WINDOW}&format=json`, { accept: 'text/calendar' })).type,
    ).toMatch(/json/)
    const bad = await text(t, '/events?format=pdf')
    expect(bad.status).toBe(400)
    expect(JSON.parse(bad.body).data.params).toHaveProperty('format')
  })

  it('is valid RFC 5545 text: CRLF line ends, no line over 75 octets', async () => {
    const { body } = await text(t, `/events?${WINDOW}&format=ics`)
    expect(body.startsWith('BEGIN:VCALENDAR\r\n')).toBe(true)
    expect(body.endsWith('END:VCALENDAR\r\n') || body.endsWith('END:VCALENDAR')).toBe(true)
    expect(body.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/)
    const lines = body.split('\r\n')
    for (const line of lines) expect(Buffer.byteLength(line, 'utf8')).toBeLessThanOrEqual(75)
    // The long title was folded (a continuation line starts with a space).
    expect(lines.some((l) => l.startsWith(' '))).toBe(true)
  })

  it('carries every event of the JSON list, compared field by field', async () => {
    const json = (await t.get(`/events?${WINDOW}&per_page=50`)).body.events
    const feed = parse((await text(t, `/events?${WINDOW}&format=ics`)).body)
    expect(feed.events.map((e) => e.event.uid)).toHaveLength(json.length)
    const zonesUsed = new Set<string>()
    for (const record of json) {
      const found = feed.events.find((e) => e.event.uid.startsWith(`cal-event-${record.id}@`))
      expect(found, `event ${record.id}`).toBeDefined()
      const { event, component } = found as NonNullable<typeof found>
      expect(event.summary).toBe(record.title)
      expect(component.getFirstPropertyValue('url')).toBe(record.url)
      const start = component.getFirstProperty('dtstart')
      if (record.all_day) {
        expect(start?.type).toBe('date')
        expect(event.startDate.toString()).toBe(record.start_date.slice(0, 10))
        // DTEND is exclusive: the day after the last day.
        const last = new Date(`${record.end_date.slice(0, 10)}T00:00:00Z`)
        last.setUTCDate(last.getUTCDate() + 1)
        expect(event.endDate.toString()).toBe(last.toISOString().slice(0, 10))
      } else {
        if (record.timezone === 'UTC') {
          // UTC needs no VTIMEZONE: RFC 5545 UTC form (…Z), no TZID.
          expect(start?.getParameter('tzid')).toBeUndefined()
          expect(event.startDate.zone.tzid).toBe('UTC')
        } else {
          expect(start?.getParameter('tzid')).toBe(record.timezone)
          zonesUsed.add(record.timezone)
        }
        const instant = (utc: string) => new Date(`${utc.replace(' ', 'T')}Z`).getTime()
        expect(event.startDate.toJSDate().getTime()).toBe(instant(record.utc_start_date))
        expect(event.endDate.toJSDate().getTime()).toBe(instant(record.utc_end_date))
        // Wall time in the event's own zone, as the JSON shows it.
        expect(event.startDate.toString().replace('T', ' ').replace(/Z$/, '')).toBe(
          record.start_date,
        )
      }
      const venue = Array.isArray(record.venue) ? undefined : record.venue
      const location = component.getFirstPropertyValue('location')
      if (venue) {
        expect(location).toContain(venue.venue)
        expect(location).toContain(venue.city)
      } else expect(location).toBeNull()
      const cats = component.getAllProperties('categories').flatMap((p) => p.getValues())
      expect(cats).toEqual(record.categories.map((c: { name: string }) => c.name))
      expect(component.getFirstPropertyValue('status')).toBe('CONFIRMED')
      expect(component.getFirstPropertyValue('sequence')).toBe(0)
      expect(component.getFirstPropertyValue('last-modified')?.toString()).toBeTruthy()
    }
    expect(new Set(feed.zones)).toEqual(zonesUsed)
  })

  it('keeps the wall time across a DST change and describes both offsets in VTIMEZONE', async () => {
    const feed = parse((await text(t, `/events?${WINDOW}&format=ics`)).body)
    const at = (id: number) =>
      (
        feed.events.find((e) =>
          e.event.uid.startsWith(`cal-event-${id}@`),
        ) as (typeof feed.events)[0]
      ).event
    expect(at(ev.winter).startDate.toString()).toBe('2026-03-22T19:00:00')
    expect(at(ev.summer).startDate.toString()).toBe('2026-03-29T19:00:00')
    expect(at(ev.winter).startDate.toJSDate().toISOString()).toBe('2026-03-22T18:00:00.000Z')
    expect(at(ev.summer).startDate.toJSDate().toISOString()).toBe('2026-03-29T17:00:00.000Z')
  })

  it('shows organizer and description, but never a password-protected description', async () => {
    const body = (
      await text(t, `/events?${WINDOW}&format=ics`, { authorization: `Bearer ${TOKEN}` })
    ).body
    const feed = parse(body)
    const find = (id: number) => feed.events.find((e) => e.event.uid.startsWith(`cal-event-${id}@`))
    const winter = find(ev.winter)
    expect(winter?.event.description).toBe('Line one\nLine two; with semicolon')
    expect(String(winter?.component.getFirstPropertyValue('organizer')).toLowerCase()).toBe(
      'mailto:alice@example.org',
    )
    const secret = find(ev.secret)
    expect(secret).toBeDefined()
    expect(secret?.event.description ?? null).toBeNull()
    expect(body).not.toContain('Only for those')
  })

  it('keeps UIDs across requests and grows SEQUENCE with each update', async () => {
    const uid = async () => {
      const feed = parse((await text(t, `/events?${WINDOW}&format=ics&include=${ev.utc}`)).body)
      expect(feed.events).toHaveLength(1)
      const { event, component } = feed.events[0] as (typeof feed.events)[0]
      return { uid: event.uid, sequence: component.getFirstPropertyValue('sequence') }
    }
    const first = await uid()
    expect(first.sequence).toBe(0)
    for (const n of [1, 2, 3]) {
      const res = await t.call('POST', `/events/${ev.utc}`, {
        token: true,
        body: { title: `UTC talk v${n}` },
      })
      expect(res.status).toBe(200)
      const next = await uid()
      expect(next.uid).toBe(first.uid)
      expect(next.sequence).toBe(n)
    }
  })

  it('follows the list filters and ignores paging', async () => {
    const feed = parse(
      (await text(t, `/events?${WINDOW}&format=ics&per_page=1&page=3&search=class`)).body,
    )
    expect(feed.events.map((e) => e.event.summary).sort()).toEqual(
      ['Class, after DST', expect.stringMatching(/^Class, before DST/)].sort(),
    )
    const empty = await text(t, '/events?start_date=2030-01-01&end_date=2030-01-02&format=ics')
    expect(empty.status).toBe(200)
    expect(parse(empty.body).events).toHaveLength(0)
    expect((await text(t, '/events?format=ics&status=draft')).status).toBe(401)
  })
})
