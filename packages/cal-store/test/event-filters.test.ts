import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EventColumns } from '../src/event-columns.js'
import {
  defineFilter,
  type EventFilter,
  type FilterContext,
  NO_MATCH,
} from '../src/event-filters/event-filter.js'
import { EVENT_FILTERS } from '../src/event-filters/filter-list.js'
import { type EventListPlan, planEventList } from '../src/event-list-plan.js'
import { selectRows } from '../src/event-list-row.js'
import { scanEvents } from '../src/event-list-scan.js'
import { type CalStore, createCalStore, type EventListFilter } from '../src/index.js'
import type { CalSchema } from '../src/schema.js'
import type { CalDb } from '../src/store-context.js'
import { readTermSnapshot } from '../src/term-snapshot.js'
import { migrateCal } from '../src/testing.js'

/** A request with a field no registered filter reads, for the test-only filters below. */
type TestFilter = EventListFilter & { parity?: 0 | 1 }
const parityOf = (filter: EventListFilter) => (filter as TestFilter).parity

/** A test-only filter, declared once like the registered ones: events whose id has this parity. */
const parity = defineFilter<number>({
  name: 'parity',
  resolve: parityOf,
  scan(p, query) {
    const id = query.columns.id.data
    query.test((slot) => (id[slot] as number) % 2 === p)
  },
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
    database = await open(migrateCal)
    store = createCalStore(database)
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

  /** `plan`'s page by a scan of freshly loaded columns. */
  async function scanned(plan: EventListPlan) {
    const columns = new EventColumns()
    columns.apply([], await selectRows(db))
    return scanEvents(columns, plan)
  }

  const context = async (): Promise<FilterContext> => ({
    terms: await readTermSnapshot(db),
    lower,
    db,
  })
  const plan = async (filter: TestFilter, filters: readonly EventFilter[]) =>
    (await planEventList(filter, await context(), filters)) as EventListPlan

  it('runs a filter declared once in the scan', async () => {
    const filters = [...EVENT_FILTERS, parity]
    for (const p of [0, 1] as const) {
      const want = listed.filter((id) => id % 2 === p)
      const got = await scanned(await plan({ parity: p, limit: 100 }, filters))
      expect(got).toEqual({ ids: want, starts: expect.any(Float64Array), total: want.length })
    }
    // Unused, it filters nothing.
    const all = await scanned(await plan({ limit: 100 }, filters))
    expect(all).toEqual({ ids: listed, starts: expect.any(Float64Array), total: listed.length })
  })

  it('composes a test filter with the registered ones and with paging', async () => {
    const filters = [...EVENT_FILTERS, parity]
    const include = listed.slice(0, 6)
    const want = include.filter((id) => id % 2 === 1)
    const got = await scanned(
      await plan({ parity: 1, include, sticky_first: true, limit: 2, offset: 1 }, filters),
    )
    expect(got).toEqual({
      ids: want.slice(1, 3),
      starts: expect.any(Float64Array),
      total: want.length,
    })
  })

  it('resolves a filter whose data the model lacks in the list snapshot', async () => {
    const ana = await store.organizers.create({ name: 'Ana' })
    const linked = listed.slice(2, 5)
    for (const id of linked) await store.events.update(id, { organizers: [ana.id] })
    const got = await scanned(await plan({ organizer: [ana.id], limit: 100 }, EVENT_FILTERS))
    expect(got.ids).toEqual(linked)
    expect(await plan({ organizer: [ana.id + 1] }, EVENT_FILTERS)).toBeNull()
    for (const id of linked) await store.events.update(id, { organizers: [] })
  })

  it('empties the list without a query when a filter resolves to NO_MATCH', async () => {
    const nothing = defineFilter<number>({
      name: 'nothing',
      resolve: (filter) => (parityOf(filter) === undefined ? undefined : NO_MATCH),
      scan: () => {
        throw new Error('never asked')
      },
    })
    expect(await planEventList({ parity: 1 } as TestFilter, await context(), [nothing])).toBe(null)
    expect(await planEventList({}, await context(), [nothing])).toMatchObject({ filters: [] })
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
        scan: () => {},
      })
    await planEventList({}, await context(), [noted('a'), noted('b')])
    expect(order).toEqual(['check a', 'check b', 'resolve a', 'resolve b'])
  })
})

describe('the registered event filters', () => {
  it('have one name each', () => {
    const names = EVENT_FILTERS.map((f) => f.name)
    expect(new Set(names).size).toBe(names.length)
  })
})
