import { compileRecurrence } from '@cal/recurrence'
import type { Database } from '@kcore/db'
import { propertyRuns, testDatabases } from '@kcore/db/testing'
import fc from 'fast-check'
import { sql } from 'kysely'
import { Temporal } from 'temporal-polyfill'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type CalEvent,
  type CalStore,
  createCalStore,
  type EventListFilter,
  KEY_SPACE,
} from '../src/index.js'
import { seriesListTuning } from '../src/series-list.js'
import { migrateCal } from '../src/testing.js'
import { formatLocalDateTime } from '../src/time-zone.js'

const DAY = 86_400_000
const BASE = Date.UTC(2026, 0, 1)

/** The instant of wall time `YYYY-MM-DD HH:MM:SS` in `zone`, or of the same time a day earlier when that one falls in a gap. */
function fromLocal(text: string, zone: string): Date {
  for (let back = 0; ; back++) {
    const wall = Temporal.PlainDateTime.from(text.replace(' ', 'T')).subtract({ days: back })
    const z = wall.toZonedDateTime(zone, { disambiguation: 'compatible' })
    if (z.toPlainDateTime().equals(wall)) return new Date(z.epochMilliseconds)
  }
}

/** A series as the property writes it: rule, zone, first start, duration. */
/**
 * Rules, each with the first-start days it allows (a series starts on an occurrence): 2026-01-01
 * is a Thursday, 2026-01-31 the end of a month.
 */
const RULES: [string, (day: number) => number][] = [
  ['FREQ=DAILY;COUNT=40', (d) => d],
  ['FREQ=WEEKLY;BYDAY=MO,TH', (d) => d - (d % 7)],
  ['FREQ=DAILY;INTERVAL=3', (d) => d],
  ['FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=12', () => 30],
  ['FREQ=WEEKLY;INTERVAL=2;UNTIL=20270101T000000Z', (d) => d],
  ['FREQ=MONTHLY;COUNT=10', (d) => d % 28],
]

const seriesSpec = fc.record({
  rule: fc.integer({ min: 0, max: RULES.length - 1 }),
  zone: fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Sydney'),
  day: fc.integer({ min: 0, max: 200 }),
  hours: fc.integer({ min: 0, max: 50 }),
  allDay: fc.boolean(),
  /** Which occurrences (by list position) to edit and to delete. */
  edit: fc.option(fc.integer({ min: 0, max: 30 })),
  drop: fc.option(fc.integer({ min: 0, max: 30 })),
})

const singleSpec = fc.record({
  day: fc.integer({ min: -30, max: 400 }),
  hours: fc.integer({ min: 0, max: 100 }),
})

/** Expected list items: id and start, from the core's expansion and the singles as written. */
interface Want {
  id: number
  start: number
  /** 0: a stored row (single or edited occurrence), 1: an occurrence: rows first at a tie. */
  rank: number
}

describe.each(testDatabases())('series in event lists on $name', ({ open, name }) => {
  let database: Database
  let store: CalStore

  beforeAll(async () => {
    database = await open(migrateCal)
    store = createCalStore(database)
    await store.migrate()
  })
  afterAll(async () => {
    await database?.close()
  })

  /** Every page of `filter` at `perPage`, concatenated, and the totals each page said. */
  async function allPages(s: CalStore, filter: EventListFilter, perPage: number) {
    const ids: number[] = []
    const totals = new Set<number>()
    for (let offset = 0; ; offset += perPage) {
      const page = await s.events.list({ ...filter, limit: perPage, offset })
      totals.add(page.total)
      ids.push(...page.items.map((e) => e.id))
      if (page.items.length < perPage) break
    }
    return { ids, totals: [...totals] }
  }

  it('pages singles and occurrences (edited and deleted ones too) like one sorted list', async () => {
    const data = fc.record({
      series: fc.array(seriesSpec, { minLength: 1, maxLength: 4 }),
      singles: fc.array(singleSpec, { maxLength: 12 }),
      window: fc.tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 200 })),
      perPage: fc.integer({ min: 1, max: 9 }),
    })
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31)
    await fc.assert(
      fc.asyncProperty(data, async ({ series, singles, window, perPage }) => {
        await sql`truncate cal_event restart identity cascade`.execute(database.db)
        const windowStart = new Date(BASE + window[0] * DAY)
        const windowEnd = new Date(BASE + (window[0] + window[1]) * DAY)
        const filter: EventListFilter = { window: { start: windowStart, end: windowEnd } }
        const overlaps = (start: number, end: number) =>
          end >= windowStart.getTime() && start <= windowEnd.getTime()
        const want: Want[] = []
        for (const [i, s] of singles.entries()) {
          // Singles start at 17 s past a minute: no tie with an occurrence (whole minutes).
          const start = BASE + s.day * DAY + i * 60_000 + 17_000
          const end = start + s.hours * 3600_000
          const e = await store.events.create({
            title: `single ${i}`,
            start: new Date(start),
            end: new Date(end),
          })
          if (overlaps(start, end)) want.push({ id: e.id, start, rank: 0 })
        }
        for (const [i, s] of series.entries()) {
          // Each series at its own minute past noon UTC (the same day in every zone used):
          // no two occurrences tie.
          const [rule, startDay] = RULES[s.rule] as [string, (d: number) => number]
          const start = new Date(BASE + startDay(s.day) * DAY + 12 * 3600_000 + (i + 1) * 60_000)
          const created = await store.events.create({
            title: `series ${i}`,
            start,
            end: new Date(start.getTime() + s.hours * 3600_000),
            timezone: s.zone,
            all_day: s.allDay,
            recurrence: { rules: [rule] },
          })
          const [listed] = await store.events.getMany([created.id])
          const rec = compileRecurrence(created.recurrence, {
            start: formatLocalDateTime(created.start, s.zone),
            zone: s.zone,
            durationSeconds: (created.end.getTime() - created.start.getTime()) / 1000,
            allDay: s.allDay,
          })
          const occurrences = rec.between(created.start.getTime(), windowEnd.getTime(), 5000)
          const ids = await store.events.list({
            post_parent: created.id,
            window: { start: created.start, end: windowEnd },
            limit: 5000,
          })
          expect(ids.items.map((e) => e.start.getTime())).toEqual(occurrences.map((o) => o.startMs))
          let edited: number | undefined
          let dropped: number | undefined
          if (s.edit !== null && s.edit < occurrences.length) {
            edited = (ids.items[s.edit] as CalEvent).id
            await store.events.update(edited, { title: 'edited' })
          }
          if (s.drop !== null && s.drop < occurrences.length && s.drop !== s.edit) {
            dropped = (ids.items[s.drop] as CalEvent).id
            await store.events.trash(dropped)
          }
          for (const [j, o] of occurrences.entries()) {
            const id = (ids.items[j] as CalEvent).id
            if (id === dropped || !overlaps(o.startMs, o.endMs)) continue
            want.push({ id, start: o.startMs, rank: id === edited ? 0 : 1 })
          }
          expect(listed?.id).toBe(created.id)
        }
        want.sort((a, b) => a.start - b.start || a.rank - b.rank || a.id - b.id)
        const expected = want.map((w) => w.id)
        const got = await allPages(store, filter, perPage)
        expect(got.ids).toEqual(expected)
        expect(got.totals).toEqual([expected.length])
      }),
      { numRuns: propertyRuns(name === 'pglite' ? 25 : 40, 8), seed },
    )
  }, 300_000)

  it('places every page as a brute-force enumeration does: ties, DST zones, all-day, sticky', async () => {
    // Small windows around 2026's DST changes (New York Mar 8 / Nov 1, Berlin Mar 29 / Oct 25,
    // Sydney Apr 5 / Oct 4, Havana Mar 8 / Nov 1 at midnight): every occurrence the core
    // enumerates (`between`, never `count`) is tested against the window one by one, singles
    // are put on occurrences' starts (rows first at a tie) and series share starts (ids
    // decide), sticky ones come first with `sticky_first`. Search slack 0 makes the page search
    // run to single steps.
    const DST_DAYS = [66, 87, 94, 276, 297, 304]
    const rules = [
      'FREQ=DAILY',
      'FREQ=HOURLY;INTERVAL=6',
      'FREQ=WEEKLY',
      'FREQ=DAILY;BYHOUR=1,2,3;BYMINUTE=30',
      'FREQ=DAILY;INTERVAL=2;COUNT=9',
    ]
    const spec = fc.record({
      rule: fc.integer({ min: 0, max: rules.length - 1 }),
      zone: fc.constantFrom(
        'Europe/Berlin',
        'America/New_York',
        'Australia/Sydney',
        'America/Havana',
        'UTC',
      ),
      near: fc.constantFrom(...DST_DAYS),
      daysBefore: fc.integer({ min: 0, max: 6 }),
      hours: fc.integer({ min: 0, max: 30 }),
      allDay: fc.boolean(),
      sticky: fc.boolean(),
      copies: fc.integer({ min: 1, max: 2 }),
      drop: fc.option(fc.integer({ min: 0, max: 20 })),
    })
    const data = fc.record({
      series: fc.array(spec, { minLength: 1, maxLength: 3 }),
      /** Singles: on the n-th occurrence found (a tie) or at an hour of the window. */
      singles: fc.array(
        fc.record({ on: fc.option(fc.nat(40)), hour: fc.nat(24 * 8), sticky: fc.boolean() }),
        { minLength: 2, maxLength: 8 },
      ),
      window: fc.tuple(fc.integer({ min: -3, max: 2 }), fc.integer({ min: 0, max: 4 })),
      perPage: fc.integer({ min: 1, max: 7 }),
      stickyFirst: fc.boolean(),
    })
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31)
    await fc.assert(
      fc.asyncProperty(data, async ({ series, singles, window, perPage, stickyFirst }) => {
        await sql`truncate cal_event restart identity cascade`.execute(database.db)
        const anchor = BASE + (series[0] as { near: number }).near * DAY
        const windowStart = new Date(anchor + window[0] * DAY)
        const windowEnd = new Date(windowStart.getTime() + window[1] * DAY + 3600_000)
        const overlaps = (start: number, end: number) =>
          end >= windowStart.getTime() && start <= windowEnd.getTime()
        const want: (Want & { sticky: boolean })[] = []
        const starts: number[] = []
        for (const s of series) {
          const day = BASE + (s.near - s.daysBefore) * DAY
          const rule = rules[s.rule] as string
          const allDay = s.allDay && !rule.includes('HOUR')
          for (let copy = 0; copy < s.copies; copy++) {
            // Local 00:00 (all-day) or 10:30 / 01:30 local (hourly rules start on one).
            const local = allDay ? 0 : rule.includes('BYHOUR') ? 3600 + 1800 : 10 * 3600 + 1800
            const startText = formatLocalDateTime(new Date(day + local * 1000), 'UTC')
            const start = fromLocal(startText, s.zone)
            const created = await store.events.create({
              title: `series ${s.rule}`,
              start,
              end: new Date(start.getTime() + s.hours * 3600_000),
              timezone: s.zone,
              all_day: allDay,
              sticky: s.sticky,
              recurrence: { rules: [rule] },
            })
            const rec = compileRecurrence(created.recurrence, {
              start: formatLocalDateTime(created.start, s.zone),
              zone: s.zone,
              durationSeconds: (created.end.getTime() - created.start.getTime()) / 1000,
              allDay,
            })
            const [{ slot }] = (
              await sql<{
                slot: number
              }>`select series_slot as slot from cal_event where id = ${created.id}`.execute(
                database.db,
              )
            ).rows as [{ slot: number }]
            const idOf = (key: number) =>
              key === rec.startKey ? created.id : slot * KEY_SPACE + key
            const all = rec.between(windowStart.getTime() - 40 * DAY, windowEnd.getTime(), 5000)
            let dropped: number | undefined
            if (s.drop !== null && s.drop < all.length) {
              dropped = idOf((all[s.drop] as { key: number }).key)
              await store.events.trash(dropped)
            }
            for (const o of all) {
              starts.push(o.startMs)
              const id = idOf(o.key)
              if (id !== dropped && overlaps(o.startMs, o.endMs))
                want.push({ id, start: o.startMs, rank: 1, sticky: s.sticky })
            }
          }
        }
        starts.sort((a, b) => a - b)
        for (const [i, s] of singles.entries()) {
          const start =
            s.on !== null && s.on < starts.length
              ? (starts[s.on] as number)
              : windowStart.getTime() - DAY + s.hour * 3600_000
          const end = start + (i % 3) * 3600_000
          const e = await store.events.create({
            title: `single ${i}`,
            start: new Date(start),
            end: new Date(end),
            sticky: s.sticky,
          })
          if (overlaps(start, end)) want.push({ id: e.id, start, rank: 0, sticky: s.sticky })
        }
        want.sort(
          (a, b) =>
            (stickyFirst ? Number(b.sticky) - Number(a.sticky) : 0) ||
            a.start - b.start ||
            a.rank - b.rank ||
            a.id - b.id,
        )
        const expected = want.map((w) => w.id)
        const filter: EventListFilter = {
          window: { start: windowStart, end: windowEnd },
          sticky_first: stickyFirst,
        }
        for (const slack of [64, 0]) {
          seriesListTuning.slack = slack
          try {
            const got = await allPages(store, filter, perPage)
            expect(got.ids, `slack ${slack}`).toEqual(expected)
            expect(got.totals).toEqual([expected.length])
          } finally {
            seriesListTuning.slack = 64
          }
        }
      }),
      { numRuns: propertyRuns(name === 'pglite' ? 60 : 80, 15), seed },
    )
  }, 300_000)

  it('counts an infinite daily series to 9999 and pages deep into it', async () => {
    await sql`truncate cal_event restart identity cascade`.execute(database.db)
    const series = await store.events.create({
      title: 'Daily',
      start: new Date('2026-01-01T10:00:00Z'),
      end: new Date('2026-01-01T11:00:00Z'),
      recurrence: { rules: ['FREQ=DAILY'] },
    })
    const window = {
      start: new Date('2026-01-01T00:00:00Z'),
      end: new Date('2099-12-31T00:00:00Z'),
    }
    const first = await store.events.list({ window, limit: 3 })
    const days = (Date.UTC(2099, 11, 31) - Date.UTC(2026, 0, 1)) / DAY
    expect(first.total).toBe(days)
    expect(first.items[0]?.id).toBe(series.id)
    const deep = await store.events.list({ window, limit: 2, offset: 20_000 })
    expect(deep.items.map((e) => e.start.toISOString())).toEqual([
      new Date(Date.UTC(2026, 0, 1, 10) + 20_000 * DAY).toISOString(),
      new Date(Date.UTC(2026, 0, 1, 10) + 20_001 * DAY).toISOString(),
    ])
    expect(deep.items[0]?.id).toBeGreaterThan(KEY_SPACE)
  })
})
