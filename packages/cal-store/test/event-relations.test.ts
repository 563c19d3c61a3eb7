import type { Database } from '@kcore/db'
import { propertyRuns, testDatabases } from '@kcore/db/testing'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CalEvent, CalStore } from '../src/index.js'
import { countingStore } from './statement-count.js'

// `relations(events)` reads a page's venues, organizers, categories and tags in one statement,
// each kind's columns side by side in its rows. Its records must be exactly what each
// repository's own `getMany` reads (same columns, same parsed types: dates, numbers, nulls),
// for any mix of ids an event can carry, including ones that name nothing.

/** Ids a generated event names: stored ones mostly, and the edges around them. */
const idFrom = (stored: number[]) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...stored) },
    { weight: 1, arbitrary: fc.constantFrom(0, -1, 2 ** 31 - 1, 2 ** 31, 1.5, Number.NaN) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 10_000 }) },
  )

describe.each(testDatabases())('event relations on $name', ({ open }) => {
  let database: Database
  let store: CalStore
  let cost: ReturnType<typeof countingStore>['cost']
  const ids = { venues: [] as number[], organizers: [] as number[], terms: [] as number[] }

  beforeAll(async () => {
    database = await open()
    const counted = countingStore(database, {
      now: () => new Date('2026-03-01T12:00:00Z'),
    })
    store = counted.store
    cost = counted.cost
    await store.migrate()
    for (let i = 0; i < 4; i++) {
      const venue = await store.venues.create({
        name: `Hall ${i}`,
        city: i % 2 ? 'Berlin' : null,
        geo_lat: i % 2 ? 52.5 + i / 1000 : null,
        geo_lng: i % 2 ? 13.4 : null,
        show_map: i === 1,
      })
      ids.venues.push(venue.id)
      const organizer = await store.organizers.create({ name: `Crew ${i}`, email: `c${i}@x.org` })
      ids.organizers.push(organizer.id)
    }
    // A trashed venue is still a venue an event may have named: read as getMany reads it.
    await store.venues.update(ids.venues[3] as number, { status: 'trash' })
    const music = await store.categories.create({ name: 'Music', description: 'Loud' })
    const jazz = await store.categories.create({ name: 'Jazz', parent: music.id })
    const tag = await store.tags.create({ name: 'free' })
    ids.terms.push(music.id, jazz.id, tag.id)
    // Counts are stored per term: give one some events.
    await store.events.create({
      title: 'Counted',
      start: new Date('2026-03-02T20:00:00Z'),
      end: new Date('2026-03-02T22:00:00Z'),
      categories: [jazz.id],
      tags: [tag.id],
    })
  })
  afterAll(async () => {
    await database?.close()
  })

  it('equal the repositories’ own reads, for any ids, in one statement', async () => {
    const event = fc.record({
      venue_id: fc.option(idFrom(ids.venues), { nil: null }),
      organizer_ids: fc.array(idFrom(ids.organizers), { maxLength: 5 }),
      category_ids: fc.array(idFrom(ids.terms), { maxLength: 4 }),
      tag_ids: fc.array(idFrom(ids.terms), { maxLength: 4 }),
    })
    await fc.assert(
      fc.asyncProperty(fc.array(event, { maxLength: 12 }), async (drafts) => {
        const events = drafts as unknown as CalEvent[]
        const named = (pick: (e: CalEvent) => (number | null)[]) =>
          events.flatMap(pick).filter((id): id is number => id !== null)
        const venueIds = named((e) => [e.venue_id])
        const organizerIds = named((e) => e.organizer_ids)
        const termIds = named((e) => [...e.category_ids, ...e.tag_ids])
        const byId = <T extends { id: number }>(rows: T[]) => new Map(rows.map((r) => [r.id, r]))
        const expected = {
          venues: byId(await store.venues.getMany(venueIds)),
          organizers: byId(await store.organizers.getMany(organizerIds)),
          terms: new Map([
            ...byId(await store.categories.getMany(termIds)),
            ...byId(await store.tags.getMany(termIds)),
          ]),
        }
        let relations: Awaited<ReturnType<CalStore['relations']>> | undefined
        const statements = await cost(async () => {
          relations = await store.relations(events)
        })
        expect(relations).toEqual(expected)
        const any = venueIds.length + organizerIds.length + termIds.length > 0
        expect(statements).toBe(any ? 1 : 0)
      }),
      { numRuns: propertyRuns(200, 50) },
    )
  })

  it('a listed page and its relations: one statement more than the page', async () => {
    const reader = await store.reader()
    const page = { search: 'counted', limit: 10 }
    // The first list loads the list model; the ones after read it at their snapshot.
    await reader.events.list(page)
    const listed = await cost(() => reader.events.list(page))
    const withRelations = await cost(() =>
      reader.events.listWith(page, async (result, records) => {
        const relations = await records.relations(result.items)
        expect([...relations.terms.keys()].sort()).toEqual([ids.terms[1], ids.terms[2]].sort())
        return relations
      }),
    )
    expect(withRelations).toBe(listed + 1)
  })
})
