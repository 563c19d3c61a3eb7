import { propertyRuns } from '@kcore/db/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { eventsCalendar } from '../src/cal/ical-feed.js'
import { offsetSecondsAt, transitionsBetween } from '../src/cal/zone-transitions.js'
import { calEvent, FEED_CONTEXT, NO_RELATIONS, readFeed } from './cal-feed-reader.js'

// Every VTIMEZONE of the feed comes from the runtime's zone data for the span the feed covers:
// the instants ical.js reads from a feed must be the instants the store holds (the JSON's
// utc_start_date/utc_end_date), in any zone and year.

const ZONES = Intl.supportedValuesOf('timeZone')

/** The feed of `events` read back by ical.js: each event's instants, in the order given. */
function roundTrip(events: { start: number; end: number; zone: string }[]) {
  const listed = events.map((e, i) => calEvent(i + 1, new Date(e.start), new Date(e.end), e.zone))
  const feed = eventsCalendar(listed, NO_RELATIONS, FEED_CONTEXT, 'Zones')
  const read = readFeed(feed)
  return {
    feed,
    got: listed.map((e) => {
      const found = read.find((r) => r.uid === `cal-event-${e.id}@cal.test`)
      return { zone: e.timezone, start: found?.startMs, end: found?.endMs }
    }),
    want: listed.map((e) => ({
      zone: e.timezone,
      start: e.start.getTime(),
      end: e.end.getTime(),
    })),
  }
}

const iso = (ms: number) => new Date(ms).toISOString()
const FIRST_MS = new Date(0).setUTCFullYear(1000, 0, 1) + 15 * 3_600_000
const LAST_MS = Date.UTC(9999, 11, 31, 9, 59, 59)

/**
 * ical.js 2.2.1 holds an offset within UTC-12:00..+14:00 and wraps one beyond it by 27 h
 * (Guam's local mean time, -14:21 until 1844, reads as +12:39): the property leaves such
 * instants out, and an example checks the VTIMEZONE text written for one (seed 849923299).
 */
const icalReads = (zone: string, ms: number) => {
  const seconds = offsetSecondsAt(zone, ms)
  return seconds >= -43_200 && seconds <= 50_400
}

describe('VTIMEZONE from the runtime zone data', () => {
  it('gives the hours the issue found wrong, and historic offsets', () => {
    const at = (text: string) => Date.parse(text)
    const cases = [
      // 2005-03-20 10:00 New York was EST (the 2007 rules would make it EDT).
      { zone: 'America/New_York', start: at('2005-03-20T15:00:00Z') },
      { zone: 'America/Vancouver', start: at('2027-01-15T18:00:00Z') },
      { zone: 'Africa/Casablanca', start: at('2027-06-01T09:00:00Z') },
      // Half-hour DST, both sides of each change.
      { zone: 'Australia/Lord_Howe', start: at('2026-04-04T14:00:00Z') },
      { zone: 'Australia/Lord_Howe', start: at('2026-10-03T16:00:00Z') },
      // Offsets that no longer exist: Moscow +04 (2012), Pyongyang +08:30 (2016), Samoa
      // before it crossed the date line (2011), Caracas -04:30 (2010), Kolkata's war time.
      { zone: 'Europe/Moscow', start: at('2012-07-01T10:00:00Z') },
      { zone: 'Asia/Pyongyang', start: at('2016-07-01T10:00:00Z') },
      { zone: 'Pacific/Apia', start: at('2011-06-01T10:00:00Z') },
      { zone: 'America/Caracas', start: at('2010-02-01T10:00:00Z') },
      { zone: 'Asia/Kolkata', start: at('1943-06-01T10:00:00Z') },
      // Local mean time with seconds in its offset (New York before 1883: -4:56:02).
      { zone: 'America/New_York', start: at('1850-06-01T10:00:00Z') },
      { zone: 'Europe/Amsterdam', start: at('1930-06-01T10:00:00Z') },
      { zone: 'UTC+5:30', start: at('2026-06-01T10:00:00Z') },
      { zone: 'UTC-3', start: at('1999-12-31T23:30:00Z') },
      // Found by the property below (FC_SEED=2130581765): the epoch itself, beside an instant
      // before the zone's first rule (Abidjan kept local mean time, -0:16:08, until 1912).
      { zone: 'Africa/Abidjan', start: 0 },
      { zone: 'Africa/Abidjan', start: at('1900-01-01T00:00:00Z') },
    ].map((c) => ({ ...c, end: c.start + 3_600_000 }))
    const { got, want, feed } = roundTrip(cases)
    expect(got, feed).toEqual(want)
  })

  it('writes an offset beyond ±12 h as the zone data gives it', () => {
    // Guam kept Manila's side of the date line, -14:21 local mean time, until 1844.
    const { feed } = roundTrip([{ zone: 'Pacific/Guam', start: FIRST_MS, end: FIRST_MS }])
    expect(icalReads('Pacific/Guam', FIRST_MS)).toBe(false)
    expect(feed).toContain('TZOFFSETTO:-1421')
    expect(feed).toContain('DTSTART;TZID=Pacific/Guam:10000101T003900')
  })

  it('reads back the same instants over zones × years (property)', () => {
    const yearMs = 365.2425 * 86_400_000
    const instant = fc
      .oneof(
        // The years the issue counted (2005, 2020, 2026-27) and the feed's usual near future.
        fc.integer({ min: 2004, max: 2030 }),
        fc.integer({ min: 1800, max: 2004 }),
        fc.integer({ min: 2030, max: 2200 }),
        fc.constantFrom(1000, 1883, 1970, 2037, 2038, 9999),
      )
      .chain((year) =>
        fc.integer({ min: 0, max: Math.floor(yearMs / 60_000) - 1 }).map((minute) =>
          // Stored dates are wall times in 1000..9999 in their zone (offsets reach ±15 h).
          Math.min(
            Math.max(new Date(0).setUTCFullYear(year, 0, 1) + minute * 60_000, FIRST_MS),
            LAST_MS,
          ),
        ),
      )
    const zone = fc.constantFrom(...ZONES, 'UTC+14', 'UTC-12', 'UTC+5:45')
    // Most instants lie far from a clock change: half of them are drawn minutes from one.
    const nearChange = (z: string) =>
      fc
        .tuple(fc.integer({ min: 1900, max: 2060 }), fc.nat(), fc.integer({ min: -150, max: 150 }))
        .map(([year, pick, minutes]) => {
          const from = Date.UTC(year, 0, 1)
          const changes = transitionsBetween(z, from, Date.UTC(year + 1, 0, 1))
          const change = changes[pick % Math.max(1, changes.length)]
          return (change?.atMs ?? from) + minutes * 60_000
        })
    const event = fc.record({
      zone,
      start: instant,
      minutes: fc.oneof(
        fc.integer({ min: 0, max: 180 }),
        fc.integer({ min: 0, max: 60 * 24 * 400 }),
      ),
    })
    const around = zone.chain((z) =>
      fc.record({
        zone: fc.constant(z),
        start: nearChange(z),
        minutes: fc.integer({ min: 0, max: 240 }),
      }),
    )
    fc.assert(
      fc.property(fc.array(fc.oneof(event, around), { minLength: 1, maxLength: 6 }), (drawn) => {
        const events = drawn
          .map((d) => ({
            zone: d.zone,
            start: d.start,
            end: Math.min(d.start + d.minutes * 60_000, LAST_MS),
          }))
          .filter((e) => icalReads(e.zone, e.start) && icalReads(e.zone, e.end))
        fc.pre(events.length > 0)
        const { got, want, feed } = roundTrip(events)
        expect(
          // (an instant of 0 ms, the epoch, is a value like any other: only a missing one is not)
          got.map((g) => ({
            ...g,
            start: g.start === undefined ? undefined : iso(g.start),
            end: g.end === undefined ? undefined : iso(g.end),
          })),
          feed,
        ).toEqual(want.map((w) => ({ ...w, start: iso(w.start), end: iso(w.end) })))
      }),
      { numRuns: propertyRuns(200) },
    )
  })
})
