import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalStore, formatLocalDateTime } from '../src/index.js'
import { countingStore } from './statement-count.js'

// A series write's time goes mostly to round trips (issue 29: writing a series with overrides
// <= 20 ms p50), so their number is pinned here: statements the store sends per write, counted
// by a Kysely plugin (BEGIN/COMMIT not included). `pnpm bench:series` measures the time.

const T = (iso: string) => new Date(iso)
const YEAR = { start: T('2026-01-01T00:00:00Z'), end: T('2026-12-31T00:00:00Z') }

describe.each(testDatabases())('statements per series write on $name', ({ open }) => {
  let database: Database
  let store: CalStore
  let cost: ReturnType<typeof countingStore>['cost']

  beforeAll(async () => {
    database = await open()
    const counted = countingStore(database, { now: () => T('2026-03-01T12:00:00Z') })
    store = counted.store
    cost = counted.cost
    await store.migrate()
  })
  afterAll(async () => {
    await database?.close()
  })

  async function series() {
    const created = await store.events.create({
      title: 'Weekly',
      start: T('2026-03-02T09:00:00Z'),
      end: T('2026-03-02T10:00:00Z'),
      timezone: 'Europe/Berlin',
      recurrence: { rules: ['FREQ=WEEKLY;BYDAY=MO'] },
      categories: ['Music'],
      organizers: [{ name: 'Org' }],
    })
    const { items } = await store.events.list({ post_parent: created.id, limit: 20, window: YEAR })
    return { created, ids: items.map((e) => e.id) }
  }

  it('scope=this: lock, look for the override, make it with its relations, update, read back', async () => {
    const { created, ids } = await series()
    for (const id of ids.slice(0, 10)) await store.events.update(id, { title: 'override' })
    const target = ids[12] as number
    expect(await cost(() => store.events.update(target, { title: 'new' }))).toBeLessThanOrEqual(5)
    // Again: the override is there, so no insert.
    expect(await cost(() => store.events.update(target, { title: 'again' }))).toBeLessThanOrEqual(4)
    // The whole series, with 10 overrides: the carry is one statement per changed field.
    expect(
      await cost(() => store.events.update(created.id, { description: 'all' }, { scope: 'all' })),
    ).toBeLessThanOrEqual(4)
    const [edited] = await store.events.getMany([target])
    expect(edited).toMatchObject({
      title: 'again',
      description: 'all',
      category_ids: created.category_ids,
      organizer_ids: created.organizer_ids,
    })
  })

  it("gives an override a free slug when its own (the series' and date) is taken", async () => {
    const { created, ids } = await series()
    const [third] = await store.events.getMany([ids[2] as number])
    const date = formatLocalDateTime(third?.start as Date, 'Europe/Berlin')
    const base = `${created.slug}-${date.replace(/[ :]/g, '-')}`
    const taken = await store.events.create({
      title: 'Single',
      slug: base,
      start: T('2026-05-01T09:00:00Z'),
      end: T('2026-05-01T10:00:00Z'),
    })
    expect(taken.slug).toBe(base)
    const edited = await store.events.update(ids[2] as number, { title: 'Third' })
    expect(edited).toMatchObject({ id: ids[2], title: 'Third', slug: `${base}-2` })
    expect((await store.events.get(taken.id))?.slug).toBe(base)
    // Without the clash the override takes the base itself.
    const fourth = await store.events.update(ids[3] as number, { title: 'Fourth' })
    expect(fourth.slug).toMatch(new RegExp(`^${created.slug}-\\d{4}-\\d{2}-\\d{2}-10-00-00$`))
  })
})
