import type { Database } from '@kcore/db'
import { propertyRuns, testDatabases } from '@kcore/db/testing'
import fc from 'fast-check'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type CalEvent,
  type CalStore,
  createCalStore,
  type EventListFilter,
  KEY_SPACE,
} from '../src/index.js'
import { compileRecurrence } from '../src/recurrence/index.js'
import { formatLocalDateTime } from '../src/time-zone.js'

const DAY = 86_400_000
const BASE = Date.UTC(2026, 0, 1)

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
  let sqlOnly: CalStore

  beforeAll(async () => {
    database = await open()
    store = createCalStore(database)
    sqlOnly = createCalStore(database, { listModel: false })
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
        // Both executors of single events.
        for (const s of [store, sqlOnly]) {
          const got = await allPages(s, filter, perPage)
          expect(got.ids).toEqual(expected)
          expect(got.totals).toEqual([expected.length])
        }
      }),
      { numRuns: propertyRuns(name === 'pglite' ? 25 : 40, 8), seed },
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
