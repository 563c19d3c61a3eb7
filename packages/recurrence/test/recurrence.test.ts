import { propertyRuns } from '@kcore/db/testing'
import fc from 'fast-check'
import { Temporal } from 'temporal-polyfill'
import { describe, expect, it } from 'vitest'
import { compileRecurrence, RecurrenceError, type SeriesTiming } from '../src/index.js'

// Named examples of the spec's "Recurring events": wall-clock rules across DST, the RFC 5545
// gap rule, all-day series, far keys, and every refusal with a message that says why.

const timed = (start: string, zone: string, durationSeconds = 3600): SeriesTiming => ({
  start,
  zone,
  durationSeconds,
  allDay: false,
})
const utc = (iso: string) => Date.parse(`${iso}Z`)

describe('wall-clock recurrence', () => {
  it('weekly 10:00 Europe/Berlin stays 10:00 across both DST changes; UTC moves', () => {
    const r = compileRecurrence(
      { rules: ['FREQ=WEEKLY'] },
      timed('2026-03-16 10:00:00', 'Europe/Berlin'),
    )
    const all = r.between(utc('2026-03-01T00:00:00'), utc('2026-11-10T00:00:00'))
    expect(all.every((o) => o.start.endsWith(' 10:00:00') && o.end.endsWith(' 11:00:00'))).toBe(
      true,
    )
    const byStart = new Map(
      all.map((o) => [o.start.slice(0, 10), new Date(o.startMs).toISOString()]),
    )
    expect(byStart.get('2026-03-23')).toBe('2026-03-23T09:00:00.000Z') // CET
    expect(byStart.get('2026-03-30')).toBe('2026-03-30T08:00:00.000Z') // CEST from 03-29
    expect(byStart.get('2026-10-19')).toBe('2026-10-19T08:00:00.000Z')
    expect(byStart.get('2026-10-26')).toBe('2026-10-26T09:00:00.000Z') // CET from 10-25
    expect(all).toHaveLength(35)
  })

  it('02:30 America/New_York on the spring-forward day moves forward by the gap', () => {
    const r = compileRecurrence(
      { rules: ['FREQ=DAILY;COUNT=3'] },
      timed('2026-03-07 02:30:00', 'America/New_York'),
    )
    const [before, gap, after] = r.between(0, utc('2027-01-01T00:00:00'))
    expect(before?.start).toBe('2026-03-07 02:30:00')
    expect(gap?.start).toBe('2026-03-08 03:30:00')
    expect(new Date(gap?.startMs ?? 0).toISOString()).toBe('2026-03-08T07:30:00.000Z')
    expect(after?.start).toBe('2026-03-09 02:30:00')
    // The key is the rule's own wall minute, 02:30, so it never meets a real 03:30 occurrence.
    expect(r.byKey(gap?.key ?? -1)).toEqual(gap)
    expect((gap?.key ?? 0) % 1440).toBe(150)
  })

  it('an overlap time is its first instant', () => {
    const r = compileRecurrence(
      { rules: ['FREQ=DAILY;COUNT=2'] },
      timed('2026-10-31 01:30:00', 'America/New_York'),
    )
    const [, overlap] = r.between(0, utc('2027-01-01T00:00:00'))
    expect(new Date(overlap?.startMs ?? 0).toISOString()).toBe('2026-11-01T05:30:00.000Z') // EDT
  })

  it('all-day series produce dates, 00:00:00 to 23:59:59', () => {
    const r = compileRecurrence(
      { rules: ['FREQ=MONTHLY;BYMONTHDAY=-1;UNTIL=20260630'], exdates: ['2026-03-31'] },
      {
        start: '2026-01-31 00:00:00',
        zone: 'Pacific/Auckland',
        durationSeconds: 86399,
        allDay: true,
      },
    )
    const all = r.between(utc('2025-01-01T00:00:00'), utc('2027-01-01T00:00:00'))
    expect(all.map((o) => [o.start, o.end])).toEqual([
      ['2026-01-31 00:00:00', '2026-01-31 23:59:59'],
      ['2026-02-28 00:00:00', '2026-02-28 23:59:59'],
      ['2026-04-30 00:00:00', '2026-04-30 23:59:59'],
      ['2026-05-31 00:00:00', '2026-05-31 23:59:59'],
      ['2026-06-30 00:00:00', '2026-06-30 23:59:59'],
    ])
    expect(r.input).toEqual({
      rules: ['FREQ=MONTHLY;UNTIL=20260630;BYMONTHDAY=-1'],
      exdates: ['2026-03-31 00:00:00'],
    })
    expect(r.infinite).toBe(false)
  })

  it('finds the year-9000 occurrence of an infinite daily series by its key', () => {
    const r = compileRecurrence(
      { rules: ['FREQ=DAILY'] },
      timed('2026-01-01 09:15:00', 'Europe/Paris'),
    )
    expect(r.infinite).toBe(true)
    const key = (Date.UTC(9000, 6, 14, 9, 15) / 1000 - Date.UTC(1000, 0, 1) / 1000) / 60
    const o = r.byKey(key)
    expect(o?.start).toBe('9000-07-14 09:15:00')
    expect(r.byKey(key + 1)).toBeUndefined()
    const last = r.between(utc('9999-12-31T00:00:00'), utc('9999-12-31T23:59:59'))
    expect(last.map((x) => x.start)).toEqual(['9999-12-31 09:15:00'])
  })

  it('writes RRULE, RDATE and EXDATE lines with UNTIL in UTC', () => {
    const r = compileRecurrence(
      {
        rules: ['freq=weekly;byday=mo,we;until=20261231T235959'],
        rdates: ['2026-02-03 10:00:00'],
        exdates: ['2026-02-04 10:00:00'],
      },
      timed('2026-01-05 10:00:00', 'Europe/Berlin'),
    )
    expect(r.icalLines()).toEqual([
      'RRULE:FREQ=WEEKLY;UNTIL=20261231T225959Z;BYDAY=MO,WE',
      'RDATE;TZID=Europe/Berlin:20260203T100000',
      'EXDATE;TZID=Europe/Berlin:20260204T100000',
    ])
  })
})

describe('refusals', () => {
  const start = timed('2026-01-05 10:00:00', 'Europe/Berlin')
  const refused: [string, unknown, RegExp][] = [
    ['not an object', 'FREQ=DAILY', /object/],
    ['rules not an array', { rules: 'FREQ=DAILY' }, /array of strings/],
    ['a rule not a string', { rules: [1] }, /array of strings/],
    ['no rules', { rules: [] }, /1 to 10/],
    ['11 rules', { rules: Array(11).fill('FREQ=DAILY') }, /1 to 10/],
    ['unknown field', { rules: ['FREQ=DAILY'], extra: 1 }, /unknown recurrence field extra/],
    ['unparsable', { rules: ['FREQ=DAILY;;'] }, /NAME=VALUE/],
    ['prefix', { rules: ['RRULE:FREQ=DAILY'] }, /prefix/],
    ['no FREQ', { rules: ['COUNT=2'] }, /FREQ is required/],
    ['SECONDLY', { rules: ['FREQ=SECONDLY'] }, /SECONDLY is not accepted/],
    ['MINUTELY', { rules: ['FREQ=MINUTELY'] }, /MINUTELY is not accepted/],
    ['COUNT=0', { rules: ['FREQ=DAILY;COUNT=0'] }, /COUNT must be an integer from 1/],
    ['COUNT=-1', { rules: ['FREQ=DAILY;COUNT=-1'] }, /COUNT must be an integer from 1/],
    [
      'UNTIL before start',
      { rules: ['FREQ=DAILY;UNTIL=20260101T000000Z'] },
      /before the series' start/,
    ],
    ['UNTIL unreal', { rules: ['FREQ=DAILY;UNTIL=20260230'] }, /UNTIL/],
    ['COUNT and UNTIL', { rules: ['FREQ=DAILY;COUNT=2;UNTIL=20270101'] }, /exclude each other/],
    ['unknown part', { rules: ['FREQ=DAILY;FOO=1'] }, /unknown part FOO/],
    ['repeated part', { rules: ['FREQ=DAILY;FREQ=WEEKLY'] }, /twice/],
    ['BYSECOND several', { rules: ['FREQ=DAILY;BYSECOND=0,30'] }, /wall-clock minute/],
    ['BYSECOND other', { rules: ['FREQ=DAILY;BYSECOND=30'] }, /wall-clock minute/],
    ['BYMONTHDAY=0', { rules: ['FREQ=MONTHLY;BYMONTHDAY=0'] }, /BYMONTHDAY/],
    ['BYMONTH=13', { rules: ['FREQ=YEARLY;BYMONTH=13'] }, /BYMONTH/],
    ['BYDAY=0MO', { rules: ['FREQ=MONTHLY;BYDAY=0MO'] }, /ordinal/],
    ['BYDAY ordinal weekly', { rules: ['FREQ=WEEKLY;BYDAY=1MO'] }, /ordinals/],
    ['BYWEEKNO monthly', { rules: ['FREQ=MONTHLY;BYWEEKNO=1'] }, /BYWEEKNO/],
    ['BYSETPOS alone', { rules: ['FREQ=MONTHLY;BYSETPOS=1'] }, /BYSETPOS needs/],
    ['YEARLY BYMONTHDAY alone', { rules: ['FREQ=YEARLY;BYMONTHDAY=1'] }, /needs BYMONTH/],
    ['HOURLY INTERVAL=5', { rules: ['FREQ=HOURLY;INTERVAL=5'] }, /divides 24/],
    ['start not an occurrence', { rules: ['FREQ=WEEKLY;BYDAY=TU'] }, /not one of its occurrences/],
    [
      'rdate in an occurrence minute',
      { rules: ['FREQ=DAILY'], rdates: ['2026-01-06 10:00:30'] },
      /wall-clock minute/,
    ],
    ['BYDAY mixed ordinals', { rules: ['FREQ=YEARLY;BYDAY=WE,1TH'] }, /two rules/],
    [
      'BYWEEKNO with BYYEARDAY',
      { rules: ['FREQ=YEARLY;BYWEEKNO=1;BYYEARDAY=1'] },
      /do not go together/,
    ],
    [
      'ordinal BYDAY with BYYEARDAY',
      { rules: ['FREQ=YEARLY;BYDAY=1MO;BYYEARDAY=1'] },
      /do not go with BYYEARDAY/,
    ],
    ['BYDAY=53FR', { rules: ['FREQ=YEARLY;BYDAY=53FR'] }, /gets it wrong/],
    [
      'ordinal BYDAY with BYMONTHDAY',
      { rules: ['FREQ=MONTHLY;BYDAY=1MO;BYMONTHDAY=1,2'] },
      /clients/,
    ],
    ['INTERVAL=0', { rules: ['FREQ=DAILY;INTERVAL=0'] }, /INTERVAL/],
    ['rdate unreal', { rules: ['FREQ=DAILY'], rdates: ['2026-02-30 10:00:00'] }, /rdates entry/],
    [
      'rdate year 10000',
      { rules: ['FREQ=DAILY'], rdates: ['10000-01-01 00:00:00'] },
      /rdates entry/,
    ],
    ['rdate date only', { rules: ['FREQ=DAILY'], rdates: ['2026-02-03'] }, /rdates entry/],
    ['exdate not string', { rules: ['FREQ=DAILY'], exdates: [20260101] }, /array of strings/],
    [
      '1001 dates',
      {
        rules: ['FREQ=DAILY'],
        rdates: Array(600).fill('2026-02-03 10:00:00'),
        exdates: Array(401).fill('2026-02-04 10:00:00'),
      },
      /at most 1000/,
    ],
  ]
  for (const [name, input, message] of refused)
    it(`refuses ${name}`, () => {
      expect(() => compileRecurrence(input, start)).toThrow(RecurrenceError)
      expect(() => compileRecurrence(input, start)).toThrow(message)
    })

  it('refuses times in an all-day series', () => {
    const allDay = {
      start: '2026-01-05 00:00:00',
      zone: 'UTC',
      durationSeconds: 86399,
      allDay: true,
    }
    expect(() => compileRecurrence({ rules: ['FREQ=HOURLY'] }, allDay)).toThrow(/all-day/)
    expect(() => compileRecurrence({ rules: ['FREQ=DAILY;BYHOUR=3'] }, allDay)).toThrow(/all-day/)
    expect(() =>
      compileRecurrence({ rules: ['FREQ=DAILY'], rdates: ['2026-02-01 10:00:00'] }, allDay),
    ).toThrow(/dates/)
  })
})

describe('hostile but valid rules answer exactly', () => {
  const at = (start: string) => timed(start, 'UTC', 60)
  const all = [Date.UTC(1000, 0, 1), Date.UTC(10000, 0, 1)] as const
  const yearsFrom = (first: number) => Array.from({ length: 10000 - first }, (_, i) => first + i)

  it('UNTIL=99991231 and COUNT=1e9 daily: every day to 9999, nth and byKey at the far end', () => {
    const days = (Date.UTC(9999, 11, 31) - Date.UTC(2026, 0, 1)) / 86400e3 + 1
    for (const rule of ['FREQ=DAILY;UNTIL=99991231', 'FREQ=DAILY;COUNT=1000000000']) {
      const r = compileRecurrence({ rules: [rule] }, at('2026-01-01 12:00:00'))
      expect(r.count(...all)).toBe(days)
      expect(r.nth(all[0], days - 1)?.start).toBe('9999-12-31 12:00:00')
      expect(r.nth(all[0], days)).toBeUndefined()
    }
    const r = compileRecurrence({ rules: ['FREQ=DAILY;COUNT=3'] }, at('2026-01-01 12:00:00'))
    expect(r.count(...all)).toBe(3)
  })

  it('BYSETPOS=-366 of every day: January 1st of leap years', () => {
    const r = compileRecurrence(
      { rules: ['FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYSETPOS=-366'] },
      at('2028-01-01 00:00:00'),
    )
    const leap = yearsFrom(2028).filter((y) => new Date(Date.UTC(y, 1, 29)).getUTCDate() === 29)
    expect(r.count(...all)).toBe(leap.length)
    expect(r.nth(Date.UTC(9000, 0, 1), 0)?.start).toBe(
      `${leap.find((y) => y >= 9000)}-01-01 00:00:00`,
    )
  })

  it('BYDAY=-53MO: the first Monday of years with 53 Mondays', () => {
    const r = compileRecurrence({ rules: ['FREQ=YEARLY;BYDAY=-53MO'] }, at('2029-01-01 00:00:00'))
    const mondays = (y: number) => {
      let n = 0
      for (let d = Date.UTC(y, 0, 1); d < Date.UTC(y + 1, 0, 1); d += 86400e3)
        if (new Date(d).getUTCDay() === 1) n++
      return n
    }
    expect(r.count(...all)).toBe(yearsFrom(2029).filter((y) => mondays(y) === 53).length)
  })

  it('windows far outside the calendar, NaN and nonsense arguments answer, never throw', () => {
    const r = compileRecurrence({ rules: ['FREQ=WEEKLY'] }, at('2026-01-05 10:00:00'))
    expect(r.count(-8.64e15, 8.64e15)).toBe(r.count(...all))
    expect(r.count(Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY)).toBe(r.count(...all))
    expect(r.count(Number.NaN, 0)).toBe(0)
    expect(r.between(-8.64e15, 8.64e15, 2)).toHaveLength(2)
    expect(r.nth(-1e300, 0)?.start).toBe('2026-01-05 10:00:00')
    expect(r.nth(0, 1.5)).toBeUndefined()
    expect(r.nth(0, 1e12)).toBeUndefined()
    expect(r.byKey(-1)).toBeUndefined()
    expect(r.byKey(2 ** 33)).toBeUndefined()
    expect(r.byKey(0.5)).toBeUndefined()
    expect(r.between(10, 0)).toEqual([])
  })

  it('occurrences stop at 9999-12-31, also in UTC (Etc/GMT+12 ends a day of wall time early)', () => {
    const r = compileRecurrence(
      { rules: ['FREQ=DAILY'] },
      timed('9999-12-29 20:00:00', 'Etc/GMT+12'),
    )
    expect(r.between(...all).map((o) => o.start)).toEqual([
      '9999-12-29 20:00:00',
      '9999-12-30 20:00:00',
    ])
  })
})

describe('several rules', () => {
  const all = [Date.UTC(1000, 0, 1), Date.UTC(10000, 0, 1)] as const
  const days = (Date.UTC(9999, 11, 31) - Date.UTC(2026, 0, 5)) / 86400e3 + 1

  it('count the union once: a sparse rule on a dense one adds nothing, an exdate removes one', () => {
    const input = {
      rules: ['FREQ=DAILY;BYHOUR=10,12', 'FREQ=YEARLY;INTERVAL=13'],
      rdates: ['2030-01-05 11:00:00', '2030-01-05 12:00:00'],
      exdates: ['2039-01-05 10:00:00'],
    }
    const r = compileRecurrence(input, timed('2026-01-05 10:00:00', 'UTC', 60))
    expect(r.count(...all)).toBe(2 * days + 1 - 1)
    const around = r.between(Date.UTC(2039, 0, 4), Date.UTC(2039, 0, 6))
    expect(around.map((o) => o.start)).toEqual([
      '2039-01-04 10:00:00',
      '2039-01-04 12:00:00',
      '2039-01-05 12:00:00',
    ])
    expect(r.nth(Date.UTC(2030, 0, 5), 1)?.start).toBe('2030-01-05 11:00:00')
  })

  it('refuses rules whose intervals share no cycle, quickly, instead of indexing every year', () => {
    const rules = [
      'FREQ=WEEKLY',
      ...Array.from({ length: 9 }, (_, i) => `FREQ=WEEKLY;INTERVAL=${i + 2}`),
    ]
    expect(() => compileRecurrence({ rules }, timed('2026-01-05 10:00:00', 'UTC'))).toThrow(
      /too costly to index/,
    )
  })
})

describe('any input', () => {
  // Attacker's view: random parts (valid or not), random starts and zones. The answer is a
  // RecurrenceError or a recurrence whose queries answer consistently; never another error.
  const part = fc.oneof(
    fc.constantFrom('FREQ=YEARLY', 'FREQ=MONTHLY', 'FREQ=WEEKLY', 'FREQ=DAILY', 'FREQ=HOURLY'),
    fc.constantFrom(
      'FREQ=MINUTELY',
      'FREQ=SECONDLY',
      'FREQ=FOO',
      'COUNT=0',
      'UNTIL=2026',
      'X=1',
      ';',
      '=',
    ),
    fc.integer({ min: -5, max: 1e9 }).map((n) => `COUNT=${n}`),
    fc.integer({ min: 0, max: 1e6 }).map((n) => `INTERVAL=${n}`),
    fc.constantFrom('UNTIL=20260301', 'UNTIL=20300101T000000Z', 'UNTIL=99991231', 'UNTIL=10000101'),
    fc.integer({ min: -400, max: 400 }).map((n) => `BYSETPOS=${n}`),
    fc.integer({ min: -60, max: 60 }).map((n) => `BYDAY=${n}MO,TU`),
    fc.constantFrom('BYDAY=MO,WE,FR', 'BYDAY=SU', 'BYDAY=-1FR', 'BYDAY=5TH'),
    fc.integer({ min: -400, max: 400 }).map((n) => `BYYEARDAY=${n}`),
    fc.integer({ min: -60, max: 60 }).map((n) => `BYWEEKNO=${n}`),
    fc.integer({ min: -40, max: 40 }).map((n) => `BYMONTHDAY=${n}`),
    fc.integer({ min: 0, max: 14 }).map((n) => `BYMONTH=${n}`),
    fc.integer({ min: 0, max: 25 }).map((n) => `BYHOUR=${n}`),
    fc.constantFrom('BYMINUTE=0,30', 'BYSECOND=0', 'WKST=SU', 'WKST=XX'),
  )
  // Mostly a FREQ first and a few parts, so that many rules are accepted and queried.
  const rule = fc
    .tuple(
      fc.constantFrom('FREQ=YEARLY', 'FREQ=MONTHLY', 'FREQ=WEEKLY', 'FREQ=DAILY', 'FREQ=HOURLY'),
      fc.array(part, { maxLength: 3 }),
    )
    .map(([freq, parts]) => [freq, ...parts].join(';'))

  it('refuses with RecurrenceError or answers consistently', () => {
    fc.assert(
      fc.property(
        fc.array(rule, { minLength: 1, maxLength: 2 }),
        fc.constantFrom('2026-01-05 10:00:00', '2024-02-29 00:00:00', '9999-12-31 23:00:00'),
        fc.constantFrom('UTC', 'Europe/Berlin', 'Pacific/Apia', 'UTC+14'),
        (rules, start, zone) => {
          let r: ReturnType<typeof compileRecurrence>
          try {
            r = compileRecurrence({ rules }, timed(start, zone))
          } catch (e) {
            expect(e).toBeInstanceOf(RecurrenceError)
            return
          }
          const n = r.count(-8.64e15, 8.64e15)
          expect(Number.isInteger(n) && n >= 1).toBe(true)
          const [first] = r.between(-8.64e15, 8.64e15, 1)
          expect(r.nth(-8.64e15, 0)).toEqual(first)
          expect(first && r.byKey(first.key)).toEqual(first)
          expect(r.nth(-8.64e15, n)).toBeUndefined()
        },
      ),
      { numRuns: propertyRuns(200, 30) },
    )
  })
})

describe('windows at a DST gap', () => {
  // A wall time in a gap starts when the wall time one gap later does (RFC 5545), so near a
  // forward change the order of starts is not the order of wall times and two occurrences can
  // share a start (02:30 and 03:30 on New York's spring-forward day are both 07:30Z). Every
  // window near such a change must hold exactly the occurrences whose start lies in it,
  // ordered by start then key: the reference filters one wide window's occurrences.
  const ZONES = [
    'America/New_York',
    'Europe/Berlin',
    'America/Havana', // midnight → 01:00: an all-day start is in the gap
    'Australia/Lord_Howe', // half an hour
    'Pacific/Apia', // 2011-12-30 skipped whole
    'Australia/Sydney',
  ]
  const RULES = [
    'FREQ=DAILY;BYHOUR=1,2,3;BYMINUTE=30',
    'FREQ=DAILY;BYHOUR=0,1,2,3;BYMINUTE=0,15,30,45',
    'FREQ=HOURLY;INTERVAL=1',
    'FREQ=DAILY',
    'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR=0,2,23',
  ]
  const forwardChange = (zone: string, year: number) => {
    let z = Temporal.Instant.fromEpochMilliseconds(Date.UTC(year, 0, 1)).toZonedDateTimeISO(zone)
    for (;;) {
      const t = z.getTimeZoneTransition('next')
      if (!t) return undefined
      const before = t.subtract({ nanoseconds: 1 }).offsetNanoseconds
      if (t.offsetNanoseconds > before) return t.epochMilliseconds
      z = t
    }
  }
  const HOUR = 3600_000
  const near = fc.oneof(
    fc.integer({ min: -3 * HOUR, max: 3 * HOUR }).map((ms) => Math.round(ms / 1000) * 1000),
    fc.integer({ min: -30 * HOUR, max: 30 * HOUR }),
    fc.constantFrom(0, -1, 1, -1000, 1000, 30 * 60_000, HOUR, 2 * HOUR),
  )
  it('count, between and nth hold exactly the starts in the window, by start then key', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.constantFrom(2011, 2026, 2027),
        fc.nat(RULES.length - 1),
        fc.boolean(),
        near,
        fc.nat(3 * HOUR),
        fc.nat(12),
        (zone, year, ruleIndex, allDay, fromDelta, width, n) => {
          const at = forwardChange(zone, year)
          if (at === undefined) return
          const rule = RULES[ruleIndex] as string
          const dayOnly = allDay && rule === 'FREQ=DAILY'
          // Start a few days before the change, at local 00:00 (all-day) or 00:00/00:30.
          const day = new Date(at - 4 * 86_400_000).toISOString().slice(0, 10)
          const start = `${day} ${dayOnly ? '00:00:00' : rule.includes('BYMINUTE=30') ? '01:30:00' : '00:00:00'}`
          const r = compileRecurrence(
            { rules: [rule] },
            { start, zone, durationSeconds: dayOnly ? 86399 : 1800, allDay: dayOnly },
          )
          const from = at + fromDelta
          const to = from + width
          const wide = r.between(at - 10 * 86_400_000, at + 10 * 86_400_000)
          const inWindow = wide.filter((o) => o.startMs >= from && o.startMs <= to)
          const want = [...inWindow].sort((x, y) => x.startMs - y.startMs || x.key - y.key)
          expect(r.between(from, to)).toEqual(want)
          expect(r.count(from, to)).toBe(want.length)
          const after = wide
            .filter((o) => o.startMs >= from)
            .sort((x, y) => x.startMs - y.startMs || x.key - y.key)
          // The wide window holds the n-th when it ends after it (every rule here repeats daily).
          if (n < after.length) expect(r.nth(from, n)).toEqual(after[n])
          if (want.length > 1) expect(r.between(from, to, 1)).toEqual(want.slice(0, 1))
        },
      ),
      { numRuns: propertyRuns(400, 80), verbose: 1 },
    )
  })

  it('a daily 02:30 New York series is in the window of its moved start, and both share 07:30Z', () => {
    const r = compileRecurrence(
      { rules: ['FREQ=DAILY;BYHOUR=1,2,3;BYMINUTE=30'] },
      timed('2026-03-08 01:30:00', 'America/New_York', 0),
    )
    const at = utc('2026-03-08T07:30:00')
    expect(r.count(at, at)).toBe(2)
    expect(r.between(at, at).map((o) => o.start)).toEqual([
      '2026-03-08 03:30:00',
      '2026-03-08 03:30:00',
    ])
    expect(r.count(utc('2026-03-08T07:00:00'), utc('2026-03-08T07:29:59'))).toBe(0)
    expect(r.nth(utc('2026-03-08T06:31:00'), 1)?.startMs).toBe(at)
  })
})
