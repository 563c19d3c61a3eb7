import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EventColumns, selectRows } from '../src/event-columns.js'
import {
  defineFilter,
  type EventFilter,
  NO_MATCH,
  SQL_ONLY,
} from '../src/event-filters/event-filter.js'
import { EVENT_FILTERS } from '../src/event-filters/filter-list.js'
import { listEventIds, sqlTermResolver } from '../src/event-list.js'
import { type EventListPlan, planEventList } from '../src/event-list-plan.js'
import { prepareScan, scanEvents } from '../src/event-list-scan.js'
import { type CalStore, createCalStore, type EventListFilter } from '../src/index.js'
import type { CalSchema } from '../src/schema.js'
import type { CalDb } from '../src/store-context.js'

/** A request with a field no registered filter reads, for the test-only filters below. */
type TestFilter = EventListFilter & { parity?: 0 | 1 }
const parityOf = (filter: EventListFilter) => (filter as TestFilter).parity

/** A test-only filter, declared once like the registered ones: events whose id has this parity. */
const parity = defineFilter<number>({
  name: 'parity',
  resolve: parityOf,
  where: (p, { eb }) => eb(sql<number>`e.id % 2`, '=', p),
  memory: {
    scan(p, query) {
      const id = query.columns.id.data
      query.test((slot) => (id[slot] as number) % 2 === p)
    },
  },
})

/** A test-only filter with no memory form. */
const sqlOnlyParity = defineFilter<number>({
  name: 'sql-only parity',
  resolve: parityOf,
  where: (p, { eb }) => eb(sql<number>`e.id % 2`, '=', p),
  memory: SQL_ONLY,
})

/** Lowering as a database in the C locale would (the test's words are ASCII). */
const lower = async (words: readonly string[]) => words.map((w) => w.toLowerCase())

describe.each(testDatabases())('event filters on $name', ({ open }) => {
  let database: Database
  let store: CalStore
  let db: CalDb
  /** The events' ids in list order (start, then id). */
  let listed: number[]

  beforeAll(async () => {
    database = await open()
    store = createCalStore(database, { listModel: false })
    await store.migrate()
    db = database.db.withTables<CalSchema>()
    const base = Date.UTC(2026, 0, 1)
    // Starts in reverse id order, so list order is not id order.
    const ids = await store.events.createMany(
      Array.from({ length: 9 }, (_, i) => ({
        title: `event ${i}`,
        start: new Date(base - i * 3_600_000),
        end: new Date(base),
      })),
    )
    listed = [...ids].reverse()
  })
  afterAll(async () => {
    await database?.close()
  })

  /** `plan`'s page by SQL and by a scan of freshly loaded columns. */
  async function bothWays(plan: EventListPlan) {
    const columns = new EventColumns()
    columns.apply([], await selectRows(db))
    const steps = await prepareScan(plan, { lower })
    return {
      sql: await listEventIds(db, plan),
      memory: steps && scanEvents(columns, plan, steps),
    }
  }

  const plan = async (filter: TestFilter, filters: readonly EventFilter[]) =>
    (await planEventList(filter, sqlTermResolver(db), filters)) as EventListPlan

  it('runs a filter declared once in the SQL list and in the scan alike', async () => {
    const filters = [...EVENT_FILTERS, parity]
    for (const p of [0, 1] as const) {
      const want = listed.filter((id) => id % 2 === p)
      const got = await bothWays(await plan({ parity: p, limit: 100 }, filters))
      expect(got).toEqual({
        sql: { ids: want, starts: expect.any(Float64Array), total: want.length },
        memory: got.sql,
      })
    }
    // Unused, it filters nothing either way.
    const all = await bothWays(await plan({ limit: 100 }, filters))
    expect(all).toEqual({
      sql: { ids: listed, starts: expect.any(Float64Array), total: listed.length },
      memory: all.sql,
    })
  })

  it('composes a test filter with the registered ones and with paging in both', async () => {
    const filters = [...EVENT_FILTERS, parity]
    const include = listed.slice(0, 6)
    const want = include.filter((id) => id % 2 === 1)
    const got = await bothWays(
      await plan({ parity: 1, include, sticky_first: true, limit: 2, offset: 1 }, filters),
    )
    expect(got).toEqual({
      sql: { ids: want.slice(1, 3), starts: expect.any(Float64Array), total: want.length },
      memory: got.sql,
    })
  })

  it('hands a list with a SQL-only filter to SQL', async () => {
    const withSqlOnly = await plan({ parity: 0, limit: 100 }, [...EVENT_FILTERS, sqlOnlyParity])
    const got = await bothWays(withSqlOnly)
    expect(got.memory).toBeUndefined()
    expect(got.sql.ids).toEqual(listed.filter((id) => id % 2 === 0))
    // The registered SQL-only filters do the same.
    const withOrganizer = await plan({ organizer: [1] }, EVENT_FILTERS)
    expect(withOrganizer.filters.map((f) => f.name)).toContain('organizer')
    expect(await prepareScan(withOrganizer, { lower })).toBeUndefined()
  })

  it('empties the list without a query when a filter resolves to NO_MATCH', async () => {
    const nothing = defineFilter<number>({
      name: 'nothing',
      resolve: (filter) => (parityOf(filter) === undefined ? undefined : NO_MATCH),
      where: () => {
        throw new Error('never asked')
      },
      memory: SQL_ONLY,
    })
    expect(await planEventList({ parity: 1 } as TestFilter, sqlTermResolver(db), [nothing])).toBe(
      null,
    )
    expect(await planEventList({}, sqlTermResolver(db), [nothing])).toMatchObject({ filters: [] })
  })

  it('checks every filter before any resolves', async () => {
    const order: string[] = []
    const noted = (name: string) =>
      defineFilter<number>({
        name,
        check: () => {
          order.push(`check ${name}`)
        },
        resolve: () => {
          order.push(`resolve ${name}`)
          return undefined
        },
        where: (p, { eb }) => eb('e.id', '=', p),
        memory: SQL_ONLY,
      })
    await planEventList({}, sqlTermResolver(db), [noted('a'), noted('b')])
    expect(order).toEqual(['check a', 'check b', 'resolve a', 'resolve b'])
  })
})

describe('the registered event filters', () => {
  it('have one name each', () => {
    const names = EVENT_FILTERS.map((f) => f.name)
    expect(new Set(names).size).toBe(names.length)
  })

  it('run in memory except organizer, geo and modified (the model keeps none of their data)', () => {
    expect(
      EVENT_FILTERS.filter((f) => f.sqlOnly)
        .map((f) => f.name)
        .sort(),
    ).toEqual(['geo', 'modified', 'organizer'])
  })
})
