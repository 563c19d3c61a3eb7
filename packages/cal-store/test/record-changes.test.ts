import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type CalChange, type CalStore, createCalStore, type EventInput } from '../src/index.js'
import { migrateCal } from '../src/testing.js'

/** What one committed write changed, as sorted `kind.action:id` strings. */
type Seen = string[]

const label = (c: CalChange) => `${c.kind}.${c.action}:${c.id}`

describe.each(testDatabases())('committed changes on $name', ({ open }) => {
  let database: Database
  let store: CalStore
  /** Where the follower stands: the revision it read through. */
  let cursor: number
  /** What the records read back, per change (titles and names), as of the follow. */
  let reads: Record<string, string> = {}

  /**
   * The changes committed since the last call, one `kind.action:id` list per write (revision),
   * in commit order; reads each changed record in the same transaction, as a sender would.
   */
  async function follow(): Promise<Seen[]> {
    return database.db.transaction().execute(async (trx) => {
      const { changes, through, records } = await store.committedChanges(cursor, 1000, trx)
      const byRevision = new Map<number, CalChange[]>()
      for (const c of changes)
        byRevision.set(c.revision, [...(byRevision.get(c.revision) ?? []), c])
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
      cursor = through
      return [...byRevision.values()].map((cs) => cs.map(label).sort())
    })
  }

  beforeAll(async () => {
    database = await open(migrateCal)
    store = createCalStore(database)
    await store.migrate()
    cursor = Number((await store.reader()).revision)
  })
  afterAll(async () => {
    await database?.close()
  })
  beforeEach(async () => {
    await follow()
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
    expect(await follow()).toEqual([
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
    await follow()
    const again = await store.events.create(
      event('Again', { venue: { name: 'inline hall' }, categories: ['Inline Music'] }),
    )
    expect(await follow()).toEqual([
      [`category.updated:${e.category_ids[0]}`, `event.created:${again.id}`].sort(),
    ])
  })

  it('reports updates, trash (DELETE and PATCH) and bulk creates of events', async () => {
    const e = await store.events.create(event('Talk'))
    const f = await store.events.create(event('Walk'))
    await follow()
    await store.events.update(e.id, { title: 'Talk 2' })
    await store.events.trash(e.id)
    await store.events.update(f.id, { status: 'trash' })
    const ids = await store.events.createMany([event('Bulk 1'), event('Bulk 2')])
    expect(await follow()).toEqual([
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
    await follow()
    await store.venues.update(venue.id, { city: 'Utrecht' })
    await store.venues.trash(venue.id)
    await store.organizers.update(organizer.id, { status: 'trash' })
    const calls = await follow()
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
    await follow()
    await store.tags.update(tag.id, { name: 'gratis' })
    await store.categories.delete(parent.id)
    const calls = await follow()
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

  it('has nothing of a write that fails, and reads the record as it is when followed', async () => {
    await expect(store.events.create(event(''))).rejects.toThrow()
    await expect(store.events.update(2_000_000, { title: 'x' })).rejects.toThrow()
    // A transaction that wrote and then failed: rolled back, so nothing of it is ever read.
    await expect(
      database.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('cal_venue' as never)
          .values({} as never)
          .execute()
      }),
    ).rejects.toThrow()
    expect(await follow()).toEqual([])
    const e = await store.events.create(event('Before'))
    await store.events.update(e.id, { title: 'After' })
    // Two writes, two revisions; the record reads as it is now (after both).
    expect(await follow()).toEqual([[`event.created:${e.id}`], [`event.updated:${e.id}`]])
    expect(reads[`event.created:${e.id}`]).toBe('After')
  })

  it('reads whole revisions, the first `revisions` of them, from where it is told', async () => {
    const from = Number((await store.reader()).revision)
    const f = await store.events.create(event('One'))
    const g = await store.events.createMany([event('Two'), event('Three')])
    const first = await store.committedChanges(from, 1)
    expect(first.changes.map(label)).toEqual([`event.created:${f.id}`])
    expect(first).toMatchObject({ through: from + 1, more: true })
    const second = await store.committedChanges(first.through, 1)
    expect(second.changes.map(label)).toEqual(g.map((id) => `event.created:${id}`))
    const none = await store.committedChanges(second.through, 1)
    expect(none).toMatchObject({ changes: [], through: second.through, more: false })
    expect((await store.committedChanges(from, 5)).more).toBe(false)
    // Edges: no revisions asked for, a fraction, a position before the first or not a number.
    for (const [after, revisions] of [
      [from, 0],
      [from, -1],
      [from, 1.5],
      [-1, 1],
      [Number.NaN, 1],
      [from, Number.POSITIVE_INFINITY],
    ]) {
      await expect(store.committedChanges(after as number, revisions as number)).rejects.toThrow(
        RangeError,
      )
    }
    // Far past the last revision: nothing, and nothing more.
    expect(await store.committedChanges(2 ** 52, 1)).toMatchObject({ changes: [], more: false })
  })
})
