import { propertyRuns } from '@kcore/db/testing'
import fc from 'fast-check'
import ICAL from 'ical.js'
import { RRuleTemporal } from 'rrule-temporal'
import { Temporal } from 'temporal-polyfill'
import { describe, expect, it } from 'vitest'
import {
  compileRecurrence,
  type Recurrence,
  RecurrenceError,
  type SeriesTiming,
} from '../src/index.js'

// `between` must equal ical.js's expansion of the same series (an independent RFC 5545
// implementation), for rules and windows aimed at the edges: month ends and negative month
// days, ordinals ±5 and ±53, BYSETPOS, leap days, DST gaps and overlaps in both hemispheres (and
// Lord Howe's half-hour DST), INTERVAL, COUNT and the three forms of UNTIL. ical.js runs on the
// floating wall clock; the test maps its wall times to instants itself (Temporal, 'compatible':
// a gap moves forward, an overlap is the first instant) and applies a UTC UNTIL as the
// instant bound it is. `count`, `nth` and `byKey` must agree with `between`.
//
// Left out of the generator, and why:
// - EXDATE beside BYHOUR: ical.js 2.2.1 ignored one on a BYHOUR occurrence.
// - COUNT beside BYHOUR: ical.js 2.2.1 miscounts (DAILY;BYHOUR=23,0;COUNT=1 gives two).
// - BYMONTHDAY beyond 28 or negative, and yearly starts on the 29th-31st: ical.js 2.2.1 rolls
//   Feb 30 over into March 2nd and loses negative month days in several combinations (the
//   rrule-temporal property below covers them).
// - YEARLY BYDAY ordinals beyond ±2: ical.js 2.2.1 loses them (52MO, 20MO give nothing).
// - BYHOUR in HOURLY rules: ical.js 2.2.1 expands it (INTERVAL=8;BYHOUR=0,3 gives 00:00 too);
//   in MONTHLY rules it emits wrong days (INTERVAL=2;BYDAY=MO;BYHOUR=0,1 gives a Wednesday).
// - BYMONTH in MONTHLY rules: ical.js 2.2.1 skips and reorders occurrences.
// - BYSETPOS in YEARLY, DAILY and HOURLY rules: ical.js 2.2.1 applies it per month in YEARLY
//   rules and ignores it over BYHOUR's times (DAILY;BYHOUR=0,1;BYSETPOS=1 gives both hours):
//   and picks wrong among negative month days (MONTHLY;BYMONTHDAY=1,-30;BYSETPOS=1 gives
//   Oct 2) and in WEEKLY rules ending with UNTIL (BYDAY=MO,TH;BYSETPOS=1 gives Thursday too):
//   BYSETPOS goes only to MONTHLY rules without BYHOUR and BYMONTHDAY (BYDAY sets like "last
//   weekday of the month"). The fast path is checked against
//   rrule-temporal for the rest by the property below.
// - negative BYSETPOS: ical.js 2.2.1 never picks the month's first day with one
//   (MONTHLY;BYDAY=SU;BYSETPOS=-5 skips 2025-06-01 and 2026-03-01, which rrule-temporal and this
//   module give; found by the flake run's seed 1082710700). The rrule-temporal property keeps
//   negative positions.
// - negative BYMONTHDAY in DAILY/HOURLY rules: ical.js 2.2.1 runs out of memory on them.
// - EXDATEs naming no occurrence are kept out of ical.js's input (`oracle`): ical.js 2.2.1
//   then skips the EXDATE after them.
// - negative BYMONTHDAY in YEARLY rules: ical.js 2.2.1 counts from the wrong month's end
//   (BYMONTH=1,6;BYMONTHDAY=-2 from 2027-01-30 gives 2027-06-29, 2028-01-29 and misses
//   2027-01-30); YEARLY rules get positive month days only.

// FC_SEED and FC_PATH replay a printed failure. Without them, `test` and `test:all` (CI) run
// both properties on one fixed seed, and only `test:full` on a fresh one: some seeds still find
// disagreements not yet settled (the pinned counterexample below), and CI must not turn on the
// dice. Every seed that failed is kept as an expected failure until it is fixed.
const replay = process.env.FC_SEED
  ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH, endOnFailure: true }
  : process.env.KCORE_TEST_LEVEL === 'full'
    ? {}
    : { seed: 2 }

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'America/Havana', // springs forward at midnight
  'Australia/Sydney',
  'Australia/Lord_Howe', // 30-minute DST
  'America/Santiago',
  'Pacific/Auckland',
  'America/Sao_Paulo', // DST until 2019
  'Asia/Kolkata',
  'Pacific/Apia', // skipped 2011-12-30
  'UTC+5:30',
  'UTC-9',
]
const DAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const
const WALL_1000 = Date.UTC(1000, 0, 1) / 1000

const wallText = (w: number) => new Date(w * 1000).toISOString().slice(0, 19).replace('T', ' ')
const icalText = (w: number, date: boolean) =>
  new Date(w * 1000)
    .toISOString()
    .slice(0, date ? 10 : 19)
    .replace(/[-:]/g, '')
const zoneId = (zone: string) =>
  zone === 'UTC+5:30' ? '+05:30' : zone === 'UTC-9' ? '-09:00' : zone
const instantOf = (wall: number, zone: string) => {
  const d = new Date(wall * 1000)
  return Temporal.PlainDateTime.from({
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  }).toZonedDateTime(zoneId(zone), { disambiguation: 'compatible' }).epochMilliseconds
}
const wallAt = (ms: number, zone: string) => {
  const z = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zoneId(zone))
  return Date.UTC(z.year, z.month - 1, z.day, z.hour, z.minute, z.second) / 1000
}

type Until = { kind: 'date' | 'floating' | 'utc'; wall: number }
interface Case {
  zone: string
  allDay: boolean
  startWall: number
  rules: { freq: string; parts: string[]; count?: number; until?: Until }[]
  rdates: number[]
  exdates: number[]
  fromOffsetDays: number
  spanDays: number
}

const subset = <T>(items: readonly T[], max: number) =>
  fc.uniqueArray(fc.constantFrom(...items), { minLength: 1, maxLength: max })
const monthDays = fc.constantFrom(1, 2, 15, 28, 29, 30, 31, -1, -2, -3, -29, -30, -31)
// ical.js 2.2.1 rolls YEARLY;BYMONTH=2;BYMONTHDAY=30 over into March 2nd and loses negative
// month days (MONTHLY;BYDAY=MO;BYMONTHDAY=-30,1 from Monday 2019-04-01 gives nothing).
const safeMonthDays = fc.constantFrom(1, 2, 15, 28)

function ruleArb(allDay: boolean, ical: boolean) {
  const freqs = allDay
    ? (['YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY'] as const)
    : (['YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY', 'HOURLY'] as const)
  return fc.constantFrom(...freqs).chain((freq) => {
    const ordinal =
      freq === 'YEARLY'
        ? // ical.js 2.2.1 loses far yearly ordinals (BYDAY=52MO gives nothing, not even DTSTART).
          ical
          ? fc.constantFrom(1, 2, -1, -2)
          : fc.constantFrom(1, 2, -1, -2, 52, -53) // (53 is refused: the library errs)
        : fc.constantFrom(1, 2, 4, 5, -1, -5)
    const byDay =
      freq === 'MONTHLY' || freq === 'YEARLY'
        ? fc
            .uniqueArray(
              fc
                .tuple(fc.option(ordinal, { freq: 2 }), fc.constantFrom(...DAYS))
                .map(([o, d]) => `${o ?? ''}${d}`),
              { minLength: 1, maxLength: 3, selector: (s) => s.replace(/^[-\d]+/, '') },
            )
            // Mixed lists (WE,1TH) are refused: rrule-temporal drops their plain days.
            .map((days) =>
              days.some((d) => /\d/.test(d)) ? days.filter((d) => /\d/.test(d)) : days,
            )
        : subset(DAYS, 3)
    return fc.record({
      freq: fc.constant(freq),
      // HOURLY takes INTERVALs that divide 24 (others are refused).
      interval:
        freq === 'HOURLY'
          ? fc.constantFrom(1, 2, 3, 8, 12)
          : fc.oneof({ weight: 3, arbitrary: fc.constant(1) }, fc.integer({ min: 2, max: 4 }), {
              weight: 1,
              arbitrary: fc.integer({ min: 5, max: 40 }),
            }),
      byDay: fc.option(byDay, { freq: 2 }),
      byMonthDay:
        freq === 'WEEKLY'
          ? fc.constant(null)
          : fc.option(
              fc.uniqueArray(ical ? safeMonthDays : monthDays, {
                minLength: 1,
                maxLength: 3,
              }),
              { freq: 3 },
            ),
      // ical.js 2.2.1 skips and reorders MONTHLY;BYMONTH (from 2013-01-13 with BYMONTH=11,1 it
      // gives 2013-01-13, 2014-11-13, 2014-01-13): MONTHLY rules go without BYMONTH.
      byMonth:
        freq === 'HOURLY' || (ical && freq === 'MONTHLY')
          ? fc.constant(null)
          : fc.option(subset([1, 2, 3, 4, 6, 10, 11, 12], 3), { freq: 3 }),
      byHour:
        // ical.js 2.2.1 expands BYHOUR in HOURLY rules (RFC 5545: a limit): not generated there.
        // It also emits a Wednesday 1995-03-01 for MONTHLY;INTERVAL=2;BYDAY=MO;BYHOUR=0,1.
        allDay || freq === 'YEARLY' || (ical && (freq === 'HOURLY' || freq === 'MONTHLY'))
          ? fc.constant(null)
          : fc.option(subset([0, 1, 2, 3, 10, 23], 2), { freq: 4 }),
      // ical.js 2.2.1's negative BYSETPOS never picks a month's first day: positive ones only.
      bySetPos: fc.option(
        fc.uniqueArray(fc.constantFrom(...(ical ? [1, 2, 3] : [1, 2, 3, -1, -2])), {
          minLength: 1,
          maxLength: 2,
        }),
        { freq: 3 },
      ),
      // ical.js mishandles these too; rrule-temporal is the reference for them.
      byWeekNo:
        ical || freq !== 'YEARLY'
          ? fc.constant(null)
          : fc.option(subset([1, 2, 20, 52, 53, -1, -53], 2), { freq: 3 }),
      byYearDay:
        ical || (freq !== 'YEARLY' && freq !== 'HOURLY')
          ? fc.constant(null)
          : fc.option(subset([1, 60, 100, 365, 366, -1, -366], 2), { freq: 3 }),
      wkst: fc.option(fc.constantFrom(...DAYS), { freq: 3 }),
      end: fc.oneof(
        fc.constant(null),
        fc.integer({ min: 1, max: 40 }).map((count) => ({ count })),
        fc
          .record({
            kind: fc.constantFrom('date', 'floating', 'utc'),
            days: fc.integer({ min: 0, max: 1500 }),
            second: fc.constantFrom(0, 3600, 9000, 86399, 36000),
          })
          .map((u) => ({ until: u })),
      ),
    })
  })
}

const caseArb = (ical: boolean): fc.Arbitrary<Case> =>
  fc
    .record({
      zone: fc.constantFrom(...ZONES),
      allDay: fc.boolean(),
      day: fc.integer({ min: Date.UTC(1995, 0, 1) / 86400e3, max: Date.UTC(2030, 0, 1) / 86400e3 }),
      time: fc.constantFrom(0, 1800, 5400, 9000, 10800, 36000, 84600, 3723),
    })
    .chain(({ zone, allDay, day, time }) => {
      // ical.js 2.2.1 rolls a yearly start's 29th-31st over into the next month where the month
      // is shorter (BYMONTH=2,1 from the 29th gives March 1st): its cases start by the 28th.
      const dom = new Date(day * 86400e3).getUTCDate()
      const startDay = ical && dom > 28 ? day - 3 : day
      const startWall = startDay * 86400 + (allDay ? 0 : time)
      return fc
        .record({
          zone: fc.constant(zone),
          allDay: fc.constant(allDay),
          startWall: fc.constant(startWall),
          rules: fc.array(ruleArb(allDay, ical), { minLength: 1, maxLength: 3 }),
          rdates: fc.array(fc.integer({ min: 0, max: 800 }), { maxLength: 3 }),
          exdates: fc.array(fc.integer({ min: 0, max: 800 }), { maxLength: 3 }),
          fromOffsetDays: ical
            ? fc.integer({ min: -30, max: 900 })
            : fc.oneof(
                fc.integer({ min: -30, max: 900 }),
                fc.integer({ min: 900, max: 2_900_000 }),
              ),
          spanDays: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 4, max: 800 })),
        })
        .map((c) => ({
          ...c,
          rules: c.rules.map((r) => {
            const parts = [`FREQ=${r.freq}`]
            if (r.interval !== 1) parts.push(`INTERVAL=${r.interval}`)
            // BYWEEKNO takes plain weekdays only (ordinals are refused beside it).
            const byDay = r.byWeekNo ? r.byDay?.map((d) => d.replace(/^[-\d]+/, '')) : r.byDay
            if (byDay) parts.push(`BYDAY=${[...new Set(byDay)].join(',')}`)
            // Refused (ical.js rejects or misreads it): BYDAY ordinals beside BYMONTHDAY.
            const monthlyOrdinals = byDay?.some((d) => /\d/.test(d))
            // ical.js 2.2.1 misplaces negative month days of YEARLY rules with several months
            // (BYMONTH=1,6;BYMONTHDAY=-2 gives 2028-01-29): those get positive days only.
            const yearlyMonths = r.freq === 'YEARLY'
            // (YEARLY with BYMONTHDAY but no BYMONTH is refused: ical.js and rrule-temporal differ.)
            // ical.js 2.2.1 runs out of memory on DAILY/HOURLY rules with a negative BYMONTHDAY
            // (FREQ=DAILY;BYMONTHDAY=-2;BYMONTH=6,4,1;BYHOUR=1,10): positive days there.
            const dailyHours = r.freq === 'DAILY' || r.freq === 'HOURLY'
            const monthDays =
              r.freq === 'YEARLY' && !r.byMonth
                ? undefined
                : ical && (yearlyMonths || dailyHours)
                  ? r.byMonthDay?.filter((d) => d > 0)
                  : r.byMonthDay
            if (monthDays?.length && !monthlyOrdinals)
              parts.push(`BYMONTHDAY=${monthDays.join(',')}`)
            if (r.byMonth) parts.push(`BYMONTH=${r.byMonth.join(',')}`)
            if (r.byHour) parts.push(`BYHOUR=${r.byHour.join(',')}`)
            if (r.byWeekNo) parts.push(`BYWEEKNO=${r.byWeekNo.join(',')}`)
            // Refused: BYDAY ordinals beside BYYEARDAY (rrule-temporal answers per window).
            if (r.byYearDay && !r.byWeekNo && !monthlyOrdinals)
              parts.push(`BYYEARDAY=${r.byYearDay.join(',')}`)
            const hasBy = parts.length > (r.interval !== 1 ? 2 : 1)
            // ical.js 2.2.1 applies BYSETPOS of a YEARLY rule per month (BYMONTH=1,2;BYSETPOS=1
            // gives Jan 1 and Feb 1) and ignores it in DAILY rules: only MONTHLY and WEEKLY get it.
            const setPosOk = !ical || (!r.byHour && !monthDays?.length && r.freq === 'MONTHLY')
            if (r.bySetPos && hasBy && setPosOk) parts.push(`BYSETPOS=${r.bySetPos.join(',')}`)
            if (r.wkst) parts.push(`WKST=${r.wkst}`)
            const until =
              r.end && 'until' in r.end
                ? {
                    kind:
                      allDay && r.end.until.kind === 'floating'
                        ? ('date' as const)
                        : r.end.until.kind,
                    wall:
                      startWall -
                      (startWall % 86400) +
                      r.end.until.days * 86400 +
                      (allDay ? 0 : r.end.until.second),
                  }
                : undefined
            return {
              freq: r.freq,
              parts,
              // ical.js 2.2.1 miscounts COUNT over BYHOUR times (DAILY;BYHOUR=23,0;COUNT=1 from
              // 00:00 also gives 23:00): no COUNT beside BYHOUR for it.
              count: r.end && 'count' in r.end && !(ical && r.byHour) ? r.end.count : undefined,
              until: until && until.wall >= startWall ? until : undefined,
            }
          }),
          // Dates at the start's time of day (or other seconds of the day, for rdates).
          rdates: c.rdates.map((d) => startWall + d * 86400 + (allDay || d % 3 ? 0 : 1800)),
          // ical.js 2.2.1 ignores an EXDATE on a BYHOUR rule's occurrence (WEEKLY;BYDAY=MO;
          // BYHOUR=2,0 keeps 2026-11-23 00:00 in Lord Howe): none beside BYHOUR for it.
          exdates:
            ical && c.rules.some((r) => r.byHour)
              ? []
              : c.exdates.map((d) => startWall + d * 86400),
        }))
    })

function untilText(u: Until, zone: string, allDay: boolean): string {
  if (allDay || u.kind === 'date') return icalText(u.wall, true)
  if (u.kind === 'floating') return icalText(u.wall, false)
  return `${icalText(instantOf(u.wall, zone) / 1000, false)}Z`
}

function seriesOf(c: Case) {
  const timing: SeriesTiming = {
    start: wallText(c.startWall),
    zone: c.zone,
    durationSeconds: c.allDay ? 86399 : 5400,
    allDay: c.allDay,
  }
  const rules = c.rules.map((r) => {
    const parts = [...r.parts]
    if (r.count !== undefined) parts.push(`COUNT=${r.count}`)
    if (r.until) parts.push(`UNTIL=${untilText(r.until, c.zone, c.allDay)}`)
    return parts.join(';')
  })
  const date = (w: number) => (c.allDay ? wallText(w).slice(0, 10) : wallText(w))
  return { timing, input: { rules, rdates: c.rdates.map(date), exdates: c.exdates.map(date) } }
}

/**
 * The occurrences ical.js gives with startMs in [fromMs, toMs]. Its EXDATEs are the ones that
 * name an occurrence (found by ical.js without them): ical.js 2.2.1's RecurExpansion.next()
 * moves its EXDATE cursor one step per occurrence past it and does not compare again, so an
 * EXDATE naming no occurrence hides the next one when no occurrence lies between them (Oct 4
 * and Oct 10 2028 beside a Tuesday series: Oct 10 was kept). RFC 5545 removes every EXDATE
 * from the set; one that names no occurrence removes nothing, so leaving it out of the
 * oracle's input changes no answer.
 */
function oracle(c: Case, fromMs: number, toMs: number) {
  let walls = icalWalls({ ...c, exdates: [] }, toMs)
  if (c.exdates.length > 0)
    walls = icalWalls({ ...c, exdates: c.exdates.filter((w) => walls.has(w)) }, toMs)
  return [...walls]
    .sort((a, b) => a - b)
    .map((w) => ({ w, ms: instantOf(w, c.zone) }))
    .filter(({ ms }) => fromMs <= ms && ms <= toMs)
    .map(({ w, ms }) => ({
      key: Math.floor((w - WALL_1000) / 60),
      start: c.allDay ? wallText(w) : wallText(wallAt(ms, c.zone)),
      startMs: ms,
    }))
}

/** The wall times ical.js expands the case to, up to three days past `toMs`. */
function icalWalls(c: Case, toMs: number): Set<number> {
  const ics = ['BEGIN:VCALENDAR', 'BEGIN:VEVENT', 'UID:oracle']
  ics.push(
    c.allDay
      ? `DTSTART;VALUE=DATE:${icalText(c.startWall, true)}`
      : `DTSTART:${icalText(c.startWall, false)}`,
  )
  const utcBounds: (number | undefined)[] = []
  for (const r of c.rules) {
    const parts = [...r.parts]
    if (r.count !== undefined) parts.push(`COUNT=${r.count}`)
    let bound: number | undefined
    if (r.until) {
      // A date UNTIL beside a date-time start ends with its day (RFC 5545 wants the same type).
      if (r.until.kind === 'utc' && !c.allDay) bound = instantOf(r.until.wall, c.zone)
      else if (r.until.kind === 'date' && !c.allDay)
        parts.push(`UNTIL=${icalText(r.until.wall - (r.until.wall % 86400) + 86399, false)}`)
      else parts.push(`UNTIL=${icalText(r.until.wall, c.allDay)}`)
    }
    // ical.js expands every RRULE of an event; a UTC UNTIL is applied below as an instant bound,
    // so rules with one run as separate events.
    utcBounds.push(bound)
    ics.push(`RRULE:${parts.join(';')}`)
  }
  for (const w of c.rdates)
    ics.push(c.allDay ? `RDATE;VALUE=DATE:${icalText(w, true)}` : `RDATE:${icalText(w, false)}`)
  for (const w of c.exdates)
    ics.push(c.allDay ? `EXDATE;VALUE=DATE:${icalText(w, true)}` : `EXDATE:${icalText(w, false)}`)
  ics.push('END:VEVENT', 'END:VCALENDAR')
  const walls = new Set<number>()
  const stopWall = wallAt(toMs, c.zone) + 3 * 86400
  // One expansion per rule, so each rule's UTC UNTIL bounds its own occurrences.
  c.rules.forEach((_, i) => {
    const lines = ics.filter(
      (l) => !l.startsWith('RRULE:') || l === ics.filter((x) => x.startsWith('RRULE:'))[i],
    )
    const event = new ICAL.Event(
      new ICAL.Component(ICAL.parse(lines.join('\r\n'))).getFirstSubcomponent('vevent')!,
    )
    const iterator = event.iterator()
    for (let t = iterator.next(), n = 0; t; t = iterator.next(), n++) {
      const w = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second) / 1000
      if (w > stopWall || w > Date.UTC(9999, 11, 31, 23, 59, 59) / 1000) break
      if (n > 200_000) throw new Error('oracle ran away')
      const bound = utcBounds[i]
      if (
        bound !== undefined &&
        instantOf(w, c.zone) > bound &&
        !c.rdates.includes(w) &&
        w !== c.startWall
      )
        continue
      walls.add(w)
    }
  })
  return walls
}

/**
 * The case with its start moved to the first rule's first occurrence at or after the
 * generated one (a series starts on an occurrence of every rule), and the other rules, rdates
 * and exdates kept only where the series accepts them; undefined when the rule never occurs.
 */
function synchronised(c: Case): { c: Case; r: Recurrence } | undefined {
  const [first] = c.rules
  if (!first) return undefined
  const dtstart = c.allDay
    ? `DTSTART;VALUE=DATE:${icalText(c.startWall, true)}`
    : `DTSTART:${icalText(c.startWall, false)}Z`
  // between, not next: rrule-temporal 2.2.8's next() answers 1996-01-01 for BYDAY=53MO.
  const seed = Temporal.Instant.fromEpochMilliseconds(c.startWall * 1000).toZonedDateTimeISO('UTC')
  let next: Temporal.ZonedDateTime | undefined
  try {
    ;[next] = new RRuleTemporal({
      rruleString: `${dtstart}\nRRULE:${first.parts.join(';')}`,
    }).between(seed, seed.add({ hours: 24 * 366 * 9 }), true)
  } catch {
    return undefined // the library gives up on rules that never occur
  }
  if (!next || next.year > 2040) return undefined
  const startWall = next.epochMilliseconds / 1000
  const shift = startWall - c.startWall
  let cur: Case = {
    ...c,
    startWall,
    rules: c.rules.map((r) =>
      r.until ? { ...r, until: { ...r.until, wall: r.until.wall + shift } } : r,
    ),
    rdates: c.rdates.map((w) => w + shift),
    exdates: c.exdates.map((w) => w + shift),
  }
  const accepted = (k: Case) => {
    const { timing, input } = seriesOf(k)
    try {
      return compileRecurrence(input, timing)
    } catch (e) {
      if (
        e instanceof RecurrenceError &&
        /not one of its occurrences|shares its wall-clock minute/.test(e.message)
      )
        return undefined
      throw e
    }
  }
  // Rules after the first stay where the start is one of their occurrences too.
  cur = {
    ...cur,
    rules: cur.rules.filter((r, i) => i === 0 || accepted({ ...cur, rules: [r], rdates: [] })),
  }
  const r = accepted(cur) ?? accepted((cur = { ...cur, rdates: [] }))
  return r && { c: cur, r }
}

describe('recurrence against ical.js', () => {
  const againstIcal = () =>
    fc.property(caseArb(true), (generated) => {
      const s = synchronised(generated)
      fc.pre(s !== undefined)
      if (!s) return
      const { c, r } = s
      const fromMs = instantOf(c.startWall + c.fromOffsetDays * 86400, c.zone) - 3600e3
      const toMs = fromMs + c.spanDays * 86400e3 + 7200e3
      const got = r.between(fromMs, toMs, 1e6)
      expect(got.map(({ key, start, startMs }) => ({ key, start, startMs }))).toEqual(
        oracle(c, fromMs, toMs),
      )
      expect(r.count(fromMs, toMs)).toBe(got.length)
      for (const i of [0, 1, got.length - 1, Math.floor(got.length / 2)])
        if (i >= 0 && i < got.length) expect(r.nth(fromMs, i)).toEqual(got[i])
      for (const o of got.slice(0, 5)) expect(r.byKey(o.key)).toEqual(o)
    })
  it('between equals the oracle; count, nth and byKey agree with between', () => {
    fc.assert(againstIcal(), { numRuns: propertyRuns(400, 60), verbose: 1, ...replay })
  })
  // Was pinned as an expected failure: an all-day WEEKLY;BYMONTH=10 series with EXDATEs Oct 4
  // (no occurrence) and Oct 10 2028 (one); ical.js kept Oct 10 (see `oracle`), RFC 5545 and
  // this module do not.
  it('seed 1, path 7: an EXDATE after one that names no occurrence still applies', () => {
    fc.assert(againstIcal(), { seed: 1, path: '7', numRuns: 1, endOnFailure: true })
  })
})

/** Walls of one rule from rrule-temporal, expanded from a DTSTART 400 years earlier (the same
 * weekday and phase, so BYSETPOS sees the start's whole period, as RFC 5545 says). */
function libraryWalls(c: Case, rule: Case['rules'][number], lo: number, hi: number): number[] {
  const d = new Date(c.startWall * 1000)
  // Back by whole cycles of the calendar and of INTERVAL together (20,871 weeks in 400 years
  // is odd: INTERVAL=2 weekly needs 800), or not at all when that passes year 1.
  const freq = rule.parts[0]?.slice(5) ?? ''
  const k = freq === 'HOURLY' ? 1 : Number(/INTERVAL=(\d+)/.exec(rule.parts.join(';'))?.[1] ?? 1)
  const units =
    ({ YEARLY: 400, MONTHLY: 4800, WEEKLY: 20871 } as Record<string, number>)[freq] ?? 146097
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))
  const back = (400 * k) / gcd(k, units)
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  const early =
    d.getUTCFullYear() - back < 1
      ? c.startWall
      : new Date(c.startWall * 1000).setUTCFullYear(d.getUTCFullYear() - back) / 1000
  const dtstart = c.allDay
    ? `DTSTART;VALUE=DATE:${icalText(early, true)}`
    : `DTSTART:${icalText(early, false)}Z`
  const lib = new RRuleTemporal({
    rruleString: `${dtstart}\nRRULE:${rule.parts.join(';')}`,
    maxIterations: 1_000_000,
  })
  const floating = (w: number) =>
    Temporal.Instant.fromEpochMilliseconds(w * 1000).toZonedDateTimeISO('UTC')
  const between = (a: number, b: number) =>
    lib.between(floating(a), floating(b), true).map((z) => z.epochMilliseconds / 1000)
  if (rule.count === undefined) return between(Math.max(lo, c.startWall), hi)
  // COUNT counts from the start: walk forward in growing chunks until it is reached.
  const out: number[] = []
  for (
    let a = c.startWall, span = 400 * 86400;
    out.length < rule.count && a <= WALL_9999;
    span *= 2
  ) {
    out.push(...between(a, Math.min(WALL_9999, a + span - 1)))
    a += span
  }
  return out.slice(0, rule.count)
}
const WALL_9999 = Date.UTC(9999, 11, 31, 23, 59, 59) / 1000

/** What rrule-temporal itself gives for the series, with startMs in [fromMs, toMs]. */
function libraryReference(c: Case, fromMs: number, toMs: number) {
  const lo = wallAt(fromMs, c.zone) - 3 * 86400
  const hi = Math.min(WALL_9999, wallAt(toMs, c.zone) + 3 * 86400)
  const walls = new Set<number>()
  for (const rule of c.rules) {
    const u = rule.until
    const within = (w: number) => {
      if (!u) return true
      if (c.allDay) return w <= u.wall - (u.wall % 86400)
      if (u.kind === 'date') return w <= u.wall - (u.wall % 86400) + 86399
      if (u.kind === 'floating') return w <= u.wall
      return instantOf(w, c.zone) <= Math.floor(instantOf(u.wall, c.zone) / 1000) * 1000
    }
    for (const w of libraryWalls(c, rule, lo, hi)) if (w >= c.startWall && within(w)) walls.add(w)
  }
  for (const w of c.rdates) walls.add(w)
  for (const w of c.exdates) walls.delete(w)
  return [...walls]
    .sort((a, b) => a - b)
    .map((w) => ({ w, ms: instantOf(w, c.zone) }))
    .filter(({ ms }) => fromMs <= ms && ms <= toMs)
    .map(({ w, ms }) => ({
      key: Math.floor((w - WALL_1000) / 60),
      start: c.allDay ? wallText(w) : wallText(wallAt(ms, c.zone)),
      startMs: ms,
    }))
}

describe('recurrence against rrule-temporal itself', () => {
  // The fast path (unit shapes, cycles, year tables) against the library's own expansion, for
  // everything ical.js cannot judge (BYSETPOS anywhere, BYWEEKNO, BYYEARDAY, negative month
  // days, HOURLY limits) and for windows anywhere up to 9999.
  it('between, count, nth and byKey equal the library', () => {
    fc.assert(
      fc.property(caseArb(false), (generated) => {
        const s = synchronised(generated)
        fc.pre(s !== undefined)
        if (!s) return
        const { c, r } = s
        const fromWall = Math.min(
          c.startWall + c.fromOffsetDays * 86400,
          Date.UTC(9999, 10, 1) / 1000,
        )
        const fromMs = instantOf(fromWall, c.zone) - 3600e3
        const toMs = Math.min(fromMs + c.spanDays * 86400e3 + 7200e3, Date.UTC(9999, 11, 31, 12))
        const got = r.between(fromMs, toMs, 1e6)
        expect(got.map(({ key, start, startMs }) => ({ key, start, startMs }))).toEqual(
          libraryReference(c, fromMs, toMs),
        )
        expect(r.count(fromMs, toMs)).toBe(got.length)
        for (const i of [0, 1, got.length - 1])
          if (i >= 0 && i < got.length) expect(r.nth(fromMs, i)).toEqual(got[i])
        for (const o of got.slice(0, 3)) expect(r.byKey(o.key)).toEqual(o)
      }),
      { numRuns: propertyRuns(400, 60), verbose: 1, ...replay },
    )
  })
})
