import type { Database } from '@kcore/db'
import { propertyRuns, testDatabases } from '@kcore/db/testing'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalEvent, type CalStore, createCalStore, type EventPatch } from '../src/index.js'
import { migrateCal } from '../src/testing.js'

// An edit of the whole series (scope=all) carries each changed field and relation to the
// overrides that still hold the series' old value, and leaves an override's own change alone.
// The property runs random scope=this/all edits against a model of what each occurrence shows.

const T = (iso: string) => new Date(iso)
const YEAR = { start: T('2026-01-01T00:00:00Z'), end: T('2026-12-31T00:00:00Z') }

// FC_SEED / FC_PATH replay a printed failure; otherwise a fresh seed (printed on failure).
const replay = process.env.FC_SEED
  ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH, endOnFailure: true }
  : {}

/** What one occurrence shows of the fields the property edits. */
interface Shown {
  title: string
  description: string
  venue_id: number | null
  category_ids: number[]
  tag_ids: number[]
  organizer_ids: number[]
}
type Field = keyof Shown

const shown = (e: CalEvent): Shown => ({
  title: e.title,
  description: e.description,
  venue_id: e.venue_id,
  category_ids: e.category_ids,
  tag_ids: e.tag_ids,
  organizer_ids: e.organizer_ids,
})

/** The patch that sets `field` to `value` (relations by id, as a client sends them). */
function patchOf(field: Field, value: Shown[Field]): EventPatch {
  switch (field) {
    case 'venue_id':
      return { venue: value as number | null }
    case 'category_ids':
      return { categories: value as number[] }
    case 'tag_ids':
      return { tags: value as number[] }
    case 'organizer_ids':
      return { organizers: value as number[] }
    default:
      return { [field]: value }
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

describe.each(testDatabases())('scope=all edits reach the overrides on $name', ({ open }) => {
  let database: Database
  let store: CalStore
  let venues: number[]
  let categories: number[]
  let tags: number[]
  let organizers: number[]

  beforeAll(async () => {
    database = await open(migrateCal)
    store = createCalStore(database, { now: () => T('2026-03-01T12:00:00Z') })
    await store.migrate()
    venues = []
    categories = []
    tags = []
    organizers = []
    for (const n of [1, 2, 3]) {
      venues.push((await store.venues.create({ name: `Hall ${n}` })).id)
      categories.push((await store.categories.create({ name: `Cat ${n}` })).id)
      tags.push((await store.tags.create({ name: `Tag ${n}` })).id)
      organizers.push((await store.organizers.create({ name: `Org ${n}` })).id)
    }
  })
  afterAll(async () => {
    await database?.close()
  })

  /** A weekly series (6 occurrences listed) holding the first of each related record. */
  async function series(): Promise<{ id: number; ids: number[]; start: Shown }> {
    const created = await store.events.create({
      title: 'Weekly',
      description: 'D0',
      start: T('2026-03-02T09:00:00Z'),
      end: T('2026-03-02T10:00:00Z'),
      timezone: 'Europe/Berlin',
      recurrence: { rules: ['FREQ=WEEKLY;BYDAY=MO'] },
      venue: venues[0],
      categories: [categories[0] as number],
      tags: [tags[0] as number],
      organizers: [organizers[0] as number],
    })
    const { items } = await store.events.list({ post_parent: created.id, limit: 6, window: YEAR })
    return { id: created.id, ids: items.map((e) => e.id), start: shown(created) }
  }

  it('carries changed terms, organizers and venue to the overrides that kept the old ones', async () => {
    const { id, ids } = await series()
    // The second occurrence changes its title only; the third its categories and organizers.
    await store.events.update(ids[1] as number, { title: 'Second' })
    await store.events.update(ids[2] as number, {
      categories: [categories[2] as number],
      organizers: [organizers[2] as number],
    })
    await store.events.update(
      id,
      {
        categories: [categories[1] as number],
        tags: [tags[1] as number, tags[2] as number],
        organizers: [organizers[1] as number, organizers[0] as number],
        venue: venues[1],
      },
      { scope: 'all' },
    )
    const [first, second, third] = await store.events.getMany(ids.slice(0, 3))
    const carried = {
      category_ids: [categories[1]],
      tag_ids: [tags[1], tags[2]],
      organizer_ids: [organizers[1], organizers[0]],
      venue_id: venues[1],
    }
    expect(first).toMatchObject(carried)
    // The override that kept the series' relations follows the series in each of them.
    expect(second).toMatchObject({ ...carried, title: 'Second' })
    // Its own categories and organizers stay; the tags and venue it kept follow.
    expect(third).toMatchObject({
      category_ids: [categories[2]],
      organizer_ids: [organizers[2]],
      tag_ids: [tags[1], tags[2]],
      venue_id: venues[1],
    })
  })

  it('random scope=this/all edits of fields and relations match the model', async () => {
    const occurrence = fc.integer({ min: 0, max: 5 })
    const subset = (pool: () => number[]) =>
      fc.subarray([0, 1, 2]).map((picked) => picked.map((i) => pool()[i] as number))
    // Few distinct values, so an override often holds the series' value by chance too.
    const value: Record<Field, fc.Arbitrary<Shown[Field]>> = {
      title: fc.constantFrom('Weekly', 'A', 'B'),
      description: fc.constantFrom('D0', 'D1', ''),
      venue_id: fc.constantFrom(0, 1, 2, -1).map((i) => (i < 0 ? null : (venues[i] as number))),
      category_ids: subset(() => categories),
      tag_ids: subset(() => tags),
      // Organizers keep the order given: a reordered list is another value.
      organizer_ids: fc
        .shuffledSubarray([0, 1, 2])
        .map((picked) => picked.map((i) => organizers[i] as number)),
    }
    const edit = fc.oneof(
      ...(Object.keys(value) as Field[]).map((field) =>
        fc.record({
          scope: fc.constantFrom('this' as const, 'all' as const),
          occurrence,
          field: fc.constant(field),
          value: value[field],
        }),
      ),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 8 }), async (edits) => {
        const { id, ids, start } = await series()
        // The model: the series' values and each override's, copied from the series when made.
        let model = { ...start }
        const overrides = new Map<number, Shown>()
        for (const e of edits) {
          const target = ids[e.occurrence] as number
          await store.events.update(target, patchOf(e.field, e.value), { scope: e.scope })
          const norm = e.field === 'category_ids' || e.field === 'tag_ids'
          const v = norm ? [...(e.value as number[])].sort((a, b) => a - b) : e.value
          if (e.scope === 'this') {
            const o = overrides.get(e.occurrence) ?? { ...model }
            overrides.set(e.occurrence, { ...o, [e.field]: v })
            continue
          }
          const old = model[e.field]
          for (const [k, o] of overrides) {
            if (same(o[e.field], old)) overrides.set(k, { ...o, [e.field]: v })
          }
          model = { ...model, [e.field]: v }
        }
        const expected = ids.map((_, i) => overrides.get(i) ?? model)
        expect((await store.events.getMany(ids)).map(shown)).toEqual(expected)
        const listed = await store.events.list({ post_parent: id, limit: 6, window: YEAR })
        expect(listed.items.map((e) => e.id)).toEqual(ids)
        expect(listed.items.map(shown)).toEqual(expected)
      }),
      { numRuns: propertyRuns(60, 12), ...replay },
    )
  }, 240_000)
})
