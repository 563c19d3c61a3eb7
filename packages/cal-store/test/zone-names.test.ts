import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalStore, createCalStore } from '../src/index.js'
import { migrateCal } from '../src/testing.js'

// A zone name is stored in its one spelling (issue 47, item 3): `Europe/berlin` is Berlin, and
// a feed that wrote it as given found no VTIMEZONE for it and fell back to UTC times.
describe.each(testDatabases())('time-zone names on $name', ({ open }) => {
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

  const at = (iso: string) => new Date(iso)
  const event = (timezone: string) => ({
    title: `In ${timezone}`,
    start: at('2026-07-01T08:00:00Z'),
    end: at('2026-07-01T09:00:00Z'),
    timezone,
  })

  it('stores the canonical spelling of a zone written in any case, on every write path', async () => {
    const created = await store.events.create(event('Europe/berlin'))
    expect(created.timezone).toBe('Europe/Berlin')
    expect((await store.events.get(created.id))?.timezone).toBe('Europe/Berlin')
    const updated = await store.events.update(created.id, { timezone: 'america/new_york' })
    expect(updated.timezone).toBe('America/New_York')
    // The instants stay as given: only the name's spelling changes.
    expect(updated.start).toEqual(at('2026-07-01T08:00:00Z'))
    const [bulk] = await store.events.createMany([event('ASIA/TOKYO')])
    expect((await store.events.get(bulk as number))?.timezone).toBe('Asia/Tokyo')
  })

  it('writes fixed offsets in one form and keeps canonical names as they are', async () => {
    for (const [given, stored] of [
      ['UTC+05:30', 'UTC+5:30'],
      ['UTC-03', 'UTC-3'],
      ['UTC+0', 'UTC'],
      ['UTC', 'UTC'],
      ['Europe/Berlin', 'Europe/Berlin'],
      // An alias is a name of its own (Temporal keeps it): only its case is canonical.
      ['us/eastern', 'US/Eastern'],
    ]) {
      expect((await store.events.create(event(given as string))).timezone, given).toBe(stored)
    }
  })

  it('names a series by the canonical zone, so its rule runs on that zone', async () => {
    const series = await store.events.create({
      ...event('europe/berlin'),
      recurrence: { rules: ['FREQ=DAILY;COUNT=2'] },
    })
    expect(series.timezone).toBe('Europe/Berlin')
    const { items } = await store.events.list({ post_parent: series.id })
    expect(items.map((e) => e.timezone)).toEqual(['Europe/Berlin', 'Europe/Berlin'])
  })
})
