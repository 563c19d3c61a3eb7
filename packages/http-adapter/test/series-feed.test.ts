import { type CalEvent, checkRecurrence, fromLocalDateTime, type RecurrenceInput } from '@cal/store'
import { propertyRuns, testDatabases } from '@kcore/db/testing'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventsCalendar } from '../src/cal/ical-feed.js'
import { calEvent, expandFeed, FEED_CONTEXT, NO_RELATIONS } from './cal-feed-reader.js'
import { BASE, type CalHarness, openCal } from './cal-harness.js'

// The feed of a series, expanded by ical.js over the feed's window, must give exactly the
// occurrences the server lists (spec "Feeds"), also where ical.js would expand the rule
// differently: DST gaps and overlaps (Berlin, Havana at midnight, Lord Howe's half hour) and
// BYSETPOS beside BYMONTHDAY or a BYMONTH list.

const HOUR = 3_600_000
const DAY = 24 * HOUR
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19)

interface Case {
  zone: string
  /** Wall time of the first start, `YYYY-MM-DD HH:MM:SS`. */
  start: string
  minutes: number
  rule: string
  allDay?: boolean
  exdates?: string[]
}

/** A series record as a feed list holds it (`series_rows`): its first start, rules, no edits. */
function seriesOf(c: Case, id = 1): CalEvent {
  const [date, time] = c.start.split(' ') as [string, string]
  const [year, month, day] = date.split('-').map(Number) as [number, number, number]
  const [hour, minute] = (c.allDay ? '00:00' : time).split(':').map(Number) as [number, number]
  const start = fromLocalDateTime({ year, month, day, hour, minute, second: 0 }, c.zone)
  const end = new Date(start.getTime() + (c.allDay ? DAY - 1000 : c.minutes * 60_000))
  const recurrence: RecurrenceInput = { rules: [c.rule], exdates: c.exdates ?? [] }
  return {
    ...calEvent(id, start, end, c.zone),
    title: `S${id}`,
    all_day: c.allDay ?? false,
    post_parent: id,
    recurrence,
    occurrence_start: start,
    edited_starts: [],
  }
}

/**
 * An occurrence as compared: instants of a timed one; the date of an all-day one (feeds carry
 * floating dates), kept only strictly inside the window's days on both sides, since a floating
 * date and a day in the series' zone meet a window's edges at different instants.
 */
function inner(from: number, to: number) {
  const first = iso(from + DAY).slice(0, 10)
  const last = iso(to - DAY).slice(0, 10)
  return (date: string) => date >= first && date <= last
}

/** Edited occurrences by original start: the override listed instead, or none (filtered out). */
type Edits = Map<number, CalEvent | null>

/** What the server lists over [from, to] for these series, each occurrence or its override. */
function listed(series: CalEvent[], from: number, to: number, edits: Edits = new Map()) {
  const keep = inner(from, to)
  const line = (s: CalEvent, title: string, startMs: number, endMs: number, date: string) => {
    if (!s.all_day) return [`${iso(startMs)} ${iso(endMs)} ${title}`]
    return keep(date) ? [`${date} ${title}`] : []
  }
  return series
    .flatMap((s) => {
      const r = checkRecurrence(s.recurrence, s)
      const span = s.end.getTime() - s.start.getTime()
      return r.between(from - span - DAY, to + DAY, 20_000).flatMap((o) => {
        const edit = edits.get(o.startMs)
        if (edit === null) return []
        const [startMs, endMs] = edit
          ? [edit.start.getTime(), edit.end.getTime()]
          : [o.startMs, o.endMs]
        if (endMs < from || startMs > to) return []
        return line(s, edit?.title ?? s.title, startMs, endMs, o.start.slice(0, 10))
      })
    })
    .sort()
}

/** The same, from the series' feed (and its carried overrides) as ical.js expands it. */
function expanded(series: CalEvent[], from: number, to: number, edits: Edits = new Map()) {
  const overrides = [...edits.values()].filter((e): e is CalEvent => e !== null)
  const feed = eventsCalendar([...series, ...overrides], NO_RELATIONS, FEED_CONTEXT, 'Series', {
    fromMs: from,
    toMs: to,
  })
  const keep = inner(from, to)
  const got = expandFeed(feed, from, to).flatMap((o) => {
    if (!o.date) return [`${iso(o.startMs)} ${iso(o.endMs)} ${o.title}`]
    return keep(o.date) ? [`${o.date} ${o.title}`] : []
  })
  return { feed, got: got.sort() }
}

/** Examples the issue and the recurrence core's oracle found, each over a year. */
const EXAMPLES: Case[] = [
  // 02:30 falls in Berlin's spring gap (moved to 03:30) and is repeated in autumn (first one).
  { zone: 'Europe/Berlin', start: '2026-03-01 02:30:00', minutes: 60, rule: 'FREQ=DAILY' },
  {
    zone: 'Europe/Berlin',
    start: '2026-10-25 02:30:00',
    minutes: 30,
    rule: 'FREQ=YEARLY;BYMONTH=3,10;BYDAY=-1SU',
  },
  {
    zone: 'Europe/Berlin',
    start: '2026-10-25 02:15:00',
    minutes: 90,
    rule: 'FREQ=WEEKLY;BYDAY=SU',
  },
  // Havana changes its clocks at midnight.
  { zone: 'America/Havana', start: '2026-03-01 00:30:00', minutes: 45, rule: 'FREQ=DAILY' },
  {
    zone: 'America/Havana',
    start: '2026-10-25 00:00:00',
    minutes: 120,
    rule: 'FREQ=WEEKLY;BYDAY=SU',
  },
  // Lord Howe moves its clocks by half an hour at 02:00.
  {
    zone: 'Australia/Lord_Howe',
    start: '2026-04-05 01:45:00',
    minutes: 30,
    rule: 'FREQ=DAILY;INTERVAL=1',
  },
  {
    zone: 'Australia/Lord_Howe',
    start: '2026-04-05 02:10:00',
    minutes: 20,
    rule: 'FREQ=WEEKLY;BYDAY=SU',
  },
  // An occurrence across the change: its end is an hour nearer or farther on the wall clock.
  {
    zone: 'America/New_York',
    start: '2026-03-07 23:00:00',
    minutes: 240,
    rule: 'FREQ=DAILY;COUNT=5',
  },
  // BYSETPOS beside BYMONTHDAY, and beside a BYMONTH list.
  {
    zone: 'Europe/Berlin',
    start: '2026-01-28 10:00:00',
    minutes: 60,
    rule: 'FREQ=MONTHLY;BYMONTHDAY=1,15,28;BYSETPOS=-1',
  },
  {
    zone: 'Europe/Berlin',
    start: '2026-01-05 10:00:00',
    minutes: 60,
    rule: 'FREQ=YEARLY;BYMONTH=1,6;BYDAY=MO;BYSETPOS=1',
  },
  {
    zone: 'UTC',
    start: '2026-01-01 09:00:00',
    minutes: 60,
    rule: 'FREQ=MONTHLY;BYMONTHDAY=1,2,3;BYSETPOS=1,-1',
  },
  {
    zone: 'Europe/Berlin',
    start: '2026-01-01 00:00:00',
    minutes: 0,
    rule: 'FREQ=MONTHLY;BYMONTHDAY=1,15;BYSETPOS=1',
    allDay: true,
  },
  {
    zone: 'America/New_York',
    start: '2026-03-29 09:00:00',
    minutes: 60,
    rule: 'FREQ=YEARLY;BYMONTH=3,10;BYDAY=-1SU',
  },
  // Found by the property: an end whose wall time is repeated (Lord Howe, 2027-04-04 01:30),
  // and a set left with nothing in the window but an exdated first start.
  { zone: 'Australia/Lord_Howe', start: '2026-10-04 00:30:00', minutes: 60, rule: 'FREQ=DAILY' },
  {
    zone: 'America/Havana',
    start: '2026-04-14 01:45:00',
    minutes: 0,
    rule: 'FREQ=MONTHLY;BYMONTHDAY=14,28;BYSETPOS=1',
    exdates: ['2026-04-14 01:45:00'],
  },
]

describe('the feed of a series against its occurrences', () => {
  it.each(EXAMPLES)('$zone $start $rule', (c) => {
    const series = [seriesOf(c)]
    const from = Date.UTC(2026, 0, 1)
    const to = Date.UTC(2027, 11, 31)
    const { feed, got } = expanded(series, from, to)
    expect(got, feed).toEqual(listed(series, from, to))
  })

  it('agrees over random zones, clock-change times, rules and windows (property)', () => {
    const zone = fc.constantFrom(
      'Europe/Berlin',
      'America/Havana',
      'Australia/Lord_Howe',
      'America/New_York',
      'America/Santiago',
      'Asia/Tehran',
      'UTC',
      'UTC+5:30',
    )
    // Starts on days and at times clocks change: late March/October/April/September, 00:00-03:30.
    const start = fc
      .record({
        month: fc.constantFrom(3, 4, 9, 10, 11),
        day: fc.integer({ min: 1, max: 28 }),
        half: fc.integer({ min: 0, max: 7 }),
        offset: fc.constantFrom(0, 15),
      })
      .map(
        ({ month, day, half, offset }) =>
          `2026-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')} ${String(Math.floor(half / 2)).padStart(2, '0')}:${String((half % 2) * 30 + offset).padStart(2, '0')}:00`,
      )
    const rule = (wall: string) => {
      const day = new Date(`${wall.slice(0, 10)}T00:00:00Z`)
      const weekday = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'][day.getUTCDay()]
      const dom = day.getUTCDate()
      return fc.constantFrom(
        'FREQ=DAILY',
        `FREQ=WEEKLY;BYDAY=${weekday}`,
        `FREQ=WEEKLY;BYDAY=${weekday};COUNT=30`,
        'FREQ=DAILY;INTERVAL=3;UNTIL=20271001T000000Z',
        `FREQ=MONTHLY;BYMONTHDAY=${dom}`,
        `FREQ=MONTHLY;BYMONTHDAY=${dom},28;BYSETPOS=1`,
        `FREQ=YEARLY;BYMONTH=${day.getUTCMonth() + 1},11;BYMONTHDAY=${dom};BYSETPOS=-1,1`,
        `FREQ=YEARLY;BYMONTH=${day.getUTCMonth() + 1}`,
      )
    }
    const series = fc
      .record({ zone, start, minutes: fc.constantFrom(0, 30, 60, 150, 25 * 60) })
      .chain((c) => rule(c.start).map((r) => ({ ...c, rule: r })))
    const window = fc.tuple(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 1, max: 400 }))
    const edits = fc.array(fc.tuple(fc.nat(), fc.constantFrom('title', 'move', 'drop', 'exdate')), {
      maxLength: 4,
    })
    fc.assert(
      fc.property(series, window, edits, (c, [skip, length], changes) => {
        let s: CalEvent
        try {
          s = seriesOf(c)
          checkRecurrence(s.recurrence, s)
        } catch {
          return // a start in a gap, or not an occurrence of its rule: refused on write
        }
        const from = Date.UTC(2026, 0, 1) + skip * DAY
        const to = from + length * DAY
        // Edits of occurrences in the window: an exdate, or an override the list carries (same
        // times or moved by 90 minutes) or filters out.
        const occurrences = checkRecurrence(s.recurrence, s).between(from, to, 2000)
        const overrides: Edits = new Map()
        const exdates: string[] = []
        for (const [n, what] of changes) {
          const o = occurrences[n % Math.max(1, occurrences.length)]
          if (!o || overrides.has(o.startMs) || exdates.includes(o.wall)) continue
          if (what === 'exdate') exdates.push(s.all_day ? o.wall.slice(0, 10) : o.wall)
          else if (what === 'drop') overrides.set(o.startMs, null)
          else {
            const shift = what === 'move' ? 90 * 60_000 : 0
            overrides.set(o.startMs, {
              ...calEvent(
                1000 + overrides.size,
                new Date(o.startMs + shift),
                new Date(o.endMs + shift),
                s.timezone,
              ),
              title: `E${overrides.size}`,
              all_day: s.all_day,
              post_parent: s.id,
              edited: true,
              occurrence_start: new Date(o.startMs),
              recurrence: s.recurrence,
            })
          }
        }
        s = {
          ...s,
          recurrence: { ...(s.recurrence as RecurrenceInput), exdates },
          edited_starts: [...overrides.keys()].map((ms) => new Date(ms)),
        }
        const { feed, got } = expanded([s], from, to, overrides)
        expect(got, `${JSON.stringify(c)}\n${feed}`).toEqual(listed([s], from, to, overrides))
      }),
      { numRuns: propertyRuns(200) },
    )
  })
})

/** Every event of the JSON list over `query` (pages of 50). */
async function jsonList(t: CalHarness, query: string) {
  const all: { utc_start_date: string; utc_end_date: string; title: string }[] = []
  for (let page = 1; ; page++) {
    const res = await t.get(`/events?${query}&per_page=50&page=${page}`)
    if (res.status === 404) break
    expect(res.status).toBe(200)
    all.push(...res.body.events)
    if (!res.body.next_rest_url) break
  }
  return all
    .map(
      (e) => `${e.utc_start_date.replace(' ', 'T')} ${e.utc_end_date.replace(' ', 'T')} ${e.title}`,
    )
    .sort()
}

describe.each(testDatabases())('the feed of series over HTTP on $name', ({ open }) => {
  let t: CalHarness
  beforeAll(async () => {
    t = await openCal(open)
  })
  afterAll(() => t?.close())

  it('expands in ical.js to the JSON list at clock changes and BYSETPOS rules', async () => {
    const series: [string, string, string, string][] = [
      ['Europe/Berlin', '2026-03-20 02:30:00', '2026-03-20 03:30:00', 'FREQ=DAILY;COUNT=60'],
      ['America/Havana', '2026-03-01 00:30:00', '2026-03-01 01:15:00', 'FREQ=WEEKLY;BYDAY=SU'],
      ['Australia/Lord_Howe', '2026-04-05 02:10:00', '2026-04-05 02:40:00', 'FREQ=WEEKLY;BYDAY=SU'],
      [
        'Europe/Berlin',
        '2026-01-28 10:00:00',
        '2026-01-28 11:00:00',
        'FREQ=MONTHLY;BYMONTHDAY=1,15,28;BYSETPOS=-1',
      ],
      [
        'Europe/Berlin',
        '2026-01-05 10:00:00',
        '2026-01-05 11:00:00',
        'FREQ=YEARLY;BYMONTH=1,6;BYDAY=MO;BYSETPOS=1',
      ],
    ]
    for (const [i, [timezone, start, end, rule]] of series.entries()) {
      const res = await t.create('/events', {
        title: `S${i}`,
        start_date: start,
        end_date: end,
        timezone,
        recurrence: { rules: [rule] },
      })
      expect(res.status, JSON.stringify(res.body)).toBe(201)
    }
    // An edit of an occurrence in Berlin's autumn overlap, and one moved into the spring gap's day.
    const berlin = await t.get('/events?start_date=2026-03-29&end_date=2026-03-29&per_page=50')
    const inGap = berlin.body.events.find((e: { title: string }) => e.title === 'S0')
    expect(inGap.utc_start_date).toBe('2026-03-29 01:30:00')
    const edited = await t.call('PATCH', `/events/${inGap.id}`, {
      body: { title: 'Moved by the gap' },
      token: true,
    })
    expect(edited.status).toBe(200)
    const query = 'start_date=2026-01-01&end_date=2027-12-31'
    const want = await jsonList(t, query)
    const res = await t.handler(new Request(`${BASE}/events?${query}&format=ics`))
    const feed = await res.text()
    const from = Date.UTC(2026, 0, 1)
    const to = Date.UTC(2027, 11, 31, 23, 59, 59)
    const got = expandFeed(feed, from, to)
      .map((o) => `${iso(o.startMs)} ${iso(o.endMs)} ${o.title}`)
      .sort()
    expect(got, feed).toEqual(want)
    expect(want.some((line) => line.endsWith('Moved by the gap'))).toBe(true)
  })
})
