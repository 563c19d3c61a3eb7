import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type CalStore,
  CalUnknownReferenceError,
  createCalStore,
  type EventInput,
} from '../src/index.js'
import { migrateCal } from '../src/testing.js'

// Trashed venues and organizers are no longer offered (cal-api.md): trashing unlinks them from
// every event, and no write path may name them again. The concurrent versions of these rules
// are in packages/http-adapter/test/cal-races.test.ts (PostgreSQL).
describe.each(testDatabases())('trashed venues and organizers on $name', ({ open }) => {
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

  const event = (title: string, extra: Partial<EventInput> = {}): EventInput => ({
    title,
    start: new Date('2026-05-01T18:00:00Z'),
    end: new Date('2026-05-01T20:00:00Z'),
    ...extra,
  })

  it('trash (and a PATCH to the trash) unlinks the record from every event', async () => {
    for (const how of ['trash', 'patch'] as const) {
      const venue = await store.venues.create({ name: `Hall ${how}` })
      const organizer = await store.organizers.create({ name: `Crew ${how}` })
      const other = await store.organizers.create({ name: `Other ${how}` })
      const a = await store.events.create(
        event(`A ${how}`, { venue: venue.id, organizers: [organizer.id, other.id] }),
      )
      const b = await store.events.create(event(`B ${how}`, { venue: venue.id }))
      if (how === 'trash') {
        await store.venues.trash(venue.id)
        await store.organizers.trash(organizer.id)
      } else {
        await store.venues.update(venue.id, { status: 'trash' })
        await store.organizers.update(organizer.id, { status: 'trash' })
      }
      expect((await store.venues.get(venue.id))?.status).toBe('trash')
      const [readA, readB] = await store.events.getMany([a.id, b.id])
      expect(readA?.venue_id).toBeNull()
      expect(readA?.organizer_ids).toEqual([other.id])
      expect(readB?.venue_id).toBeNull()
      expect((await store.events.list({ venue: [venue.id] })).total).toBe(0)
      expect((await store.events.list({ organizer: [organizer.id] })).total).toBe(0)
    }
  })

  it('no write names a trashed venue or organizer by id; a name makes a new one', async () => {
    const venue = await store.venues.create({ name: 'Old Hall' })
    const organizer = await store.organizers.create({ name: 'Old Crew' })
    const kept = await store.events.create(event('Kept'))
    await store.venues.trash(venue.id)
    await store.organizers.trash(organizer.id)
    const refused = [
      () => store.events.create(event('New', { venue: venue.id })),
      () => store.events.create(event('New', { organizers: [organizer.id] })),
      () => store.events.update(kept.id, { venue: venue.id }),
      () => store.events.update(kept.id, { organizers: [organizer.id] }),
      () => store.events.createMany([event('Bulk', { venue: venue.id })]),
      () => store.events.createMany([event('Bulk', { organizers: [organizer.id] })]),
    ]
    for (const write of refused) {
      await expect(write()).rejects.toBeInstanceOf(CalUnknownReferenceError)
    }
    const named = await store.events.create(
      event('By name', { venue: { name: 'old hall' }, organizers: [{ name: 'OLD CREW' }] }),
    )
    expect(named.venue_id).not.toBe(venue.id)
    expect(named.venue_id).not.toBeNull()
    expect(named.organizer_ids).toHaveLength(1)
    expect(named.organizer_ids).not.toContain(organizer.id)
    expect((await store.events.get(kept.id))?.venue_id).toBeNull()
  })

  it('a term is deleted once: the second delete is not found', async () => {
    for (const repo of [store.categories, store.tags]) {
      const term = await repo.create({ name: 'Once' })
      expect((await repo.delete(term.id)).id).toBe(term.id)
      await expect(repo.delete(term.id)).rejects.toMatchObject({ code: 'not_found' })
    }
  })
})
