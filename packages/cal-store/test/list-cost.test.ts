import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CalStore } from '../src/index.js'
import { countingStore } from './statement-count.js'

// A list's time goes mostly to round trips (issue 29: a list with recurring series <= 10 ms
// p50), so their number is pinned here: statements the store sends per list, counted by a
// Kysely plugin (BEGIN/COMMIT not included). `pnpm bench:series` measures the time.

const T = (iso: string) => new Date(iso)
const WINDOW = { start: T('2026-03-01T00:00:00Z'), end: T('2028-02-29T23:59:59Z') }

describe.each(testDatabases())('statements per event list on $name', ({ open }) => {
  let database: Database
  let store: CalStore
  let cost: ReturnType<typeof countingStore>['cost']

  beforeAll(async () => {
    database = await open()
    const counted = countingStore(database, {
      now: () => T('2026-03-01T12:00:00Z'),
    })
    store = counted.store
    cost = counted.cost
    await store.migrate()
    const music = await store.categories.create({ name: 'Music' })
    await store.events.createMany(
      [0, 1, 2].map((d) => ({
        title: `Jazz night ${d}`,
        start: T(`2026-03-0${d + 2}T20:00:00Z`),
        end: T(`2026-03-0${d + 2}T22:00:00Z`),
        categories: [music.id],
      })),
    )
    const weekly = await store.events.create({
      title: 'Jazz jam',
      start: T('2026-03-02T19:00:00Z'),
      end: T('2026-03-02T21:00:00Z'),
      timezone: 'Europe/Berlin',
      recurrence: { rules: ['FREQ=WEEKLY'] },
      categories: [music.id],
    })
    // An edited occurrence: its override row is listed in place of the occurrence.
    const { items } = await store.events.list({ post_parent: weekly.id, limit: 3, window: WINDOW })
    await store.events.update(items[1]?.id as number, { title: 'Jazz jam, moved' })
  })
  afterAll(async () => {
    await database?.close()
  })

  it("a list with series: its snapshot's revision and the page's rows", async () => {
    const filter = { categories: ['music'], search: 'jazz', window: WINDOW, limit: 10 }
    // The first list loads the list model; the ones after read it at their snapshot.
    const first = await store.events.list(filter)
    expect(first.total).toBeGreaterThan(100)
    expect(first.items.map((e) => e.title)).toContain('Jazz jam, moved')
    // The series are matched in the model's memory, as the single events are: no statement
    // of their own.
    const reader = await store.reader()
    expect(await cost(() => reader.events.list(filter))).toBe(2)
    expect(await cost(() => reader.events.list({ ...filter, offset: 50 }))).toBe(2)
  })
})
