import { testDatabases } from '@kcore/db/testing'
import fc from 'fast-check'
import { Temporal } from 'temporal-polyfill'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalHarness, ids, openCal } from './cal-harness.js'

// Any wall time 1000…9999 in any IANA zone, written as an event: one that exists in the zone and
// whose UTC instant lies in 1000…9999 too reads back exactly (a repeated one as the earlier
// instant) and the lists that should contain it do, with 200; one skipped by a DST or LMT jump,
// or whose UTC instant falls outside the range, is a 400 naming start_date (cal-api.md, "Dates
// accepted").
const ZONES = Intl.supportedValuesOf('timeZone')
const EDGE_YEARS = [1000, 1582, 1883, 1899, 1900, 1969, 1970, 2038, 9999]
const pad = (n: number, w = 2) => String(n).padStart(w, '0')

const wallTime = fc.record({
  year: fc.oneof(fc.constantFrom(...EDGE_YEARS), fc.integer({ min: 1000, max: 9999 })),
  month: fc.oneof(fc.constantFrom(1, 3, 10, 11, 12), fc.integer({ min: 1, max: 12 })),
  day: fc.integer({ min: 1, max: 31 }),
  // DST jumps happen around 00:00-03:00 local; bias there.
  hour: fc.oneof(fc.constantFrom(0, 1, 2, 3, 23), fc.integer({ min: 0, max: 23 })),
  minute: fc.oneof(fc.constantFrom(0, 30, 59), fc.integer({ min: 0, max: 59 })),
  second: fc.oneof(fc.constantFrom(0, 59), fc.integer({ min: 0, max: 59 })),
})
const zone = fc.oneof(
  fc.constantFrom(
    'America/Los_Angeles',
    'America/New_York',
    'Europe/Amsterdam',
    'Asia/Kolkata',
    'Pacific/Kiritimati',
    'Pacific/Apia',
    'Australia/Lord_Howe',
    'Asia/Manila',
    'UTC',
  ),
  fc.constantFrom(...ZONES),
)

describe.each(testDatabases())('calendar date round trip (property) on $name', ({ open }) => {
  let t: CalHarness
  beforeAll(async () => {
    t = await openCal(open)
  })
  afterAll(() => t?.close())

  it('create → read returns what was written, and the lists that should contain it do', async () => {
    await fc.assert(
      fc.asyncProperty(wallTime, zone, async (w, tz) => {
        const plain = Temporal.PlainDateTime.from(w, { overflow: 'constrain' })
        const text = `${pad(plain.year, 4)}-${pad(plain.month)}-${pad(plain.day)} ${pad(plain.hour)}:${pad(plain.minute)}:${pad(plain.second)}`
        const res = await t.call('POST', '/events', {
          body: { title: 'prop', start_date: text, end_date: text, timezone: tz },
          token: true,
        })
        const zoned = plain.toZonedDateTime(tz, { disambiguation: 'earlier' })
        const instant = zoned.toInstant()
        const utcYear = instant.toZonedDateTimeISO('UTC').year
        const skipped = !zoned.toPlainDateTime().equals(plain)
        if (skipped || utcYear < 1000 || utcYear > 9999) {
          expect(res.status, JSON.stringify(res.body)).toBe(400)
          expect(Object.keys(res.body.data.params)).toContain('start_date')
          return
        }
        expect(res.status, JSON.stringify(res.body)).toBe(201)
        const read = await t.get(`/events/${res.body.id}`)
        expect(read.status).toBe(200)
        expect(read.body.start_date).toBe(text)
        expect(read.body.end_date).toBe(text)
        const utc = instant.toZonedDateTimeISO('UTC').toPlainDateTime().toString().replace('T', ' ')
        expect(read.body.utc_start_date).toBe(utc)
        const day = utc.slice(0, 10)
        const windowed = await t.get(`/events?start_date=${day}&end_date=${day}&per_page=50`)
        expect(windowed.status).toBe(200)
        const strict = await t.get(
          `/events?starts_after=${encodeURIComponent(`${day} 00:00:00`)}&strict_dates=1&ends_before=${encodeURIComponent(`${day} 23:59:59`)}&per_page=50`,
        )
        expect(strict.status).toBe(200)
        const inDay = utc.slice(11) !== '00:00:00' && utc.slice(11) !== '23:59:59'
        expect(ids(windowed).includes(res.body.id) || windowed.body.total > 50).toBe(true)
        if (inDay) expect(ids(strict).includes(res.body.id) || strict.body.total > 50).toBe(true)
        expect((await t.get('/events')).status).toBe(200)
      }),
      { numRuns: 100 },
    )
  }, 300_000)
})
