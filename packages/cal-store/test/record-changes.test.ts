import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  type CalChange,
  type CalChangeHook,
  type CalStore,
  createCalStore,
  type EventInput,
} from '../src/index.js'

/** What one committed write handed the hook, as sorted `kind.action:id` strings. */
type Seen = string[]

const label = (c: CalChange) => `${c.kind}.${c.action}:${c.id}`

describe.each(testDatabases())('record changes on $name', ({ open }) => {
  let database: Database
  let store: CalStore
  /** The changes of each write, in the order the writes ran. */
  let calls: Seen[] = []
  /** What the hook read back in the writing transaction, per change (titles and names). */
  let reads: Record<string, string> = {}
  let failNext = false

  const hook: CalChangeHook = async (trx, changes, records) => {
    calls.push(changes.map(label).sort())
    for (const c of changes) {
      const [row] =
        c.kind === 'event'
          ? (await records.events.getMany([c.id])).map((e) => e.title)
          : c.kind === 'venue'
            ? (await records.venues.getMany([c.id])).map((v) => v.name)
            : c.kind === 'organizer'
              ? (await records.organizers.getMany([c.id])).map((o) => o.name)
              : (await records[c.kind === 'tag' ? 'tags' : 'categories'].getMany([c.id])).map(
                  (t) => t.name,
                )
      reads[label(c)] = row ?? '(gone)'
    }
    // It runs in the write's transaction: what it writes commits or rolls back with it.
    await sql`insert into hook_log (n) values (${changes.length})`.execute(trx)
    if (failNext) {
      failNext = false
      throw new Error('hook refused')
    }
  }

  beforeAll(async () => {
    database = await open()
    store = createCalStore(database, { onChanges: hook })
    await store.migrate()
    await sql`create table hook_log (n integer not null)`.execute(database.db)
  })
  afterAll(async () => {
    await database?.close()
  })
  beforeEach(() => {
    calls = []
    reads = {}
  })

  const event = (title: string, extra: Partial<EventInput> = {}): EventInput => ({
    title,
    start: new Date('2026-05-01T18:00:00Z'),
    end: new Date('2026-05-01T20:00:00Z'),
    ...extra,
  })

  it('reports an event and every record it created inline, read in the transaction', async () => {
    const e = await store.events.create(
      event('Concert', {
        venue: { name: 'Inline Hall' },
        organizers: [{ name: 'Inline Crew' }, { name: 'Second Crew' }],
        categories: ['Inline Music'],
        tags: ['inline-tag'],
      }),
    )
    const [org1, org2] = e.organizer_ids
    expect(calls).toEqual([
      [
        `category.created:${e.category_ids[0]}`,
        `event.created:${e.id}`,
        `organizer.created:${org1}`,
        `organizer.created:${org2}`,
        `tag.created:${e.tag_ids[0]}`,
        `venue.created:${e.venue_id}`,
      ].sort(),
    ])
    expect(reads[`event.created:${e.id}`]).toBe('Concert')
    expect(reads[`venue.created:${e.venue_id}`]).toBe('Inline Hall')
    // Naming them again finds them: nothing is created. The category's `count` (part of the
    // term as the API returns it) went up, so the category is updated; the venue has no count.
    calls = []
    const again = await store.events.create(
      event('Again', { venue: { name: 'inline hall' }, categories: ['Inline Music'] }),
    )
    expect(calls).toEqual([
      [`category.updated:${e.category_ids[0]}`, `event.created:${again.id}`].sort(),
    ])
  })

  it('reports updates, trash (DELETE and PATCH) and bulk creates of events', async () => {
    const e = await store.events.create(event('Talk'))
    const f = await store.events.create(event('Walk'))
    calls = []
    await store.events.update(e.id, { title: 'Talk 2' })
    await store.events.trash(e.id)
    await store.events.update(f.id, { status: 'trash' })
    const ids = await store.events.createMany([event('Bulk 1'), event('Bulk 2')])
    expect(calls).toEqual([
      [`event.updated:${e.id}`],
      [`event.deleted:${e.id}`],
      [`event.deleted:${f.id}`],
      ids.map((id) => `event.created:${id}`).sort(),
    ])
    expect(reads[`event.updated:${e.id}`]).toBe('Talk 2')
  })

  it('reports venues and organizers, and the events a trash unlinked', async () => {
    const venue = await store.venues.create({ name: 'Barn' })
    const organizer = await store.organizers.create({ name: 'Folk' })
    const e = await store.events.create(
      event('Dance', { venue: venue.id, organizers: [organizer.id] }),
    )
    calls = []
    await store.venues.update(venue.id, { city: 'Utrecht' })
    await store.venues.trash(venue.id)
    await store.organizers.update(organizer.id, { status: 'trash' })
    expect(calls[0]).toEqual([`venue.updated:${venue.id}`])
    // The venue's trash rewrote the event (venue_id cleared): its message says so.
    expect(calls[1]).toEqual([`event.updated:${e.id}`, `venue.deleted:${venue.id}`])
    expect(calls[2]).toEqual([`event.updated:${e.id}`, `organizer.deleted:${organizer.id}`])
  })

  it('reports terms: create, update, delete with the children it moved', async () => {
    const parent = await store.categories.create({ name: 'Arts' })
    const child = await store.categories.create({ name: 'Film', parent: parent.id })
    const tag = await store.tags.create({ name: 'free' })
    const e = await store.events.create(event('Screening', { categories: [parent.id] }))
    calls = []
    await store.tags.update(tag.id, { name: 'gratis' })
    await store.categories.delete(parent.id)
    expect(calls[0]).toEqual([`tag.updated:${tag.id}`])
    expect(calls[1]).toEqual(
      [
        `category.deleted:${parent.id}`,
        `category.updated:${child.id}`,
        `event.updated:${e.id}`,
      ].sort(),
    )
    expect(reads[`category.deleted:${parent.id}`]).toBe('(gone)')
    expect(reads[`tag.updated:${tag.id}`]).toBe('gratis')
  })

  it('hands nothing over for a write that fails, and a hook that throws undoes the write', async () => {
    const before = await sql<{ n: number }>`select count(*)::int as n from hook_log`.execute(
      database.db,
    )
    await expect(store.events.create(event(''))).rejects.toThrow()
    await expect(store.events.update(2_000_000, { title: 'x' })).rejects.toThrow()
    expect(calls).toEqual([])
    failNext = true
    await expect(store.venues.create({ name: 'Never' })).rejects.toThrow('hook refused')
    expect((await store.venues.list({ search: 'Never' })).total).toBe(0)
    const after = await sql<{ n: number }>`select count(*)::int as n from hook_log`.execute(
      database.db,
    )
    expect(after.rows[0]?.n).toBe(before.rows[0]?.n)
  })
})
