import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalStore, createCalStore, type EventInput } from '../src/index.js'

// Advisory locks only queue writers across connections on a real server (PGlite runs one
// connection), so this race needs PostgreSQL.
const postgres = testDatabases().find((d) => d.name === 'postgres')

describe.skipIf(!postgres)('name locks on postgres', () => {
  let database: Database
  let store: CalStore

  beforeAll(async () => {
    database = await postgres!.open()
    store = createCalStore(database)
    await store.migrate()
  })
  afterAll(async () => {
    await database?.close()
  })

  /** `n` events created at once, every other one naming `names` in reverse order. */
  const createOpposite = (n: number, write: (names: string[], i: number) => EventInput) =>
    Promise.allSettled(
      Array.from({ length: n }, (_, i) => {
        const names = ['Alpha Crew', 'Beta Crew']
        return store.events.create(write(i % 2 ? names.reverse() : names, i))
      }),
    )
  const event = (i: number): EventInput => ({
    title: `Race ${i}`,
    start: new Date('2026-05-01T18:00:00Z'),
    end: new Date('2026-05-01T20:00:00Z'),
  })
  const rejections = (results: PromiseSettledResult<unknown>[]) =>
    results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []))

  it('creates events naming the same two new organizers in opposite orders', async () => {
    const results = await createOpposite(24, (names, i) => ({
      ...event(i),
      organizers: names.map((name) => ({ name })),
    }))
    expect(rejections(results)).toEqual([])
    const organizers = await store.organizers.list({ limit: 50 })
    expect(organizers.items.map((o) => o.name).sort()).toEqual(['Alpha Crew', 'Beta Crew'])
  })

  it('creates events naming the same two new tags in opposite orders', async () => {
    const results = await createOpposite(24, (names, i) => ({ ...event(i), tags: names }))
    expect(rejections(results)).toEqual([])
    const tags = await store.tags.list({ limit: 50 })
    expect(tags.items.map((t) => [t.name, t.count])).toEqual([
      ['Alpha Crew', 24],
      ['Beta Crew', 24],
    ])
  })

  it('renames an organizer to the slug an event write is creating, without deadlock', async () => {
    // The event write locks the new organizer's slug, then share-locks the organizer it names
    // by id; the update locks that organizer's row and wants the same slug.
    const existing = await store.organizers.create({ name: 'Steady Org' })
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => [
        store.events.create({
          ...event(i),
          organizers: [{ name: `Fresh Org ${i}` }, existing.id],
        }),
        store.organizers.update(existing.id, { slug: `fresh-org-${i}` }),
      ]).flat(),
    )
    expect(rejections(results)).toEqual([])
    const slugs = (await store.organizers.list({ limit: 50 })).items.map((o) => o.slug)
    expect(new Set(slugs).size).toBe(slugs.length)
  })
})
