import type { Database } from '@kcore/db'
import { propertyRuns, secondConnection, type TestDatabase, testDatabases } from '@kcore/db/testing'
import fc from 'fast-check'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EVENT_FILTERS } from '../src/event-filters/filter-list.js'
import { type EventListView, listEvents, ModelMoved } from '../src/event-list.js'
import { createEventListModel, type EventListModel } from '../src/event-list-model.js'
import { planEventList } from '../src/event-list-plan.js'
import {
  type CalStore,
  createCalStore,
  type EventInput,
  type EventListFilter,
  POST_STATUSES,
  type TermRef,
} from '../src/index.js'
import { queryRevision } from '../src/revision.js'
import type { CalSchema } from '../src/schema.js'
import type { CalDb } from '../src/store-context.js'
import { migrateCal, prng } from '../src/testing.js'
import { isTransientConflict } from '../src/transact.js'
import { sqlSingles } from './sql-singles.js'

// The list model must answer, after any writes, what a model loaded afresh answers, and its
// single events must be what SQL on the stored rows gives (`sql-singles.ts`), for any data and
// any filter. The generators aim at the edges: instants on, one millisecond around and one microsecond past
// each other (and at the first and last storable years), zero-length and year-long events,
// equal starts (the id breaks the tie), words with LIKE's special characters and non-ASCII
// case, unknown and foreign term refs, and writes between lists (the change log's path) as
// well as truncates and a pruned log (the reload's path).

const ANCHORS = [
  Date.UTC(1000, 0, 1),
  Date.UTC(1969, 11, 31, 23, 59, 59, 999),
  0,
  Date.UTC(2026, 2, 29, 1, 0),
  Date.UTC(2026, 2, 29, 1, 0) + 3_600_000,
  Date.UTC(9999, 11, 30),
]
const DURATIONS = [0, 1, 3_600_000, 86_400_000, 366 * 86_400_000]
const WORDS = [
  'Jazz',
  'jazz',
  'ÄRGER',
  'ärger',
  'İstanbul',
  'straße',
  '50%',
  'a_b',
  'x\\y',
  'nacht',
]

const instant = fc
  .tuple(fc.constantFrom(...ANCHORS), fc.constantFrom(-1, 0, 1, 60_000))
  .map(([a, d]) => a + d)
const FIRST = Date.UTC(1000, 0, 1)
const LAST = Date.UTC(9999, 11, 31, 23, 59, 59)
/** Events take years 1000…9999 only (filters may reach past them). */
const eventInstant = instant.map((t) => Math.min(LAST, Math.max(FIRST, t)))
const text = fc.array(fc.constantFrom(...WORDS), { maxLength: 3 }).map((w) => w.join(' '))

interface Terms {
  categories: { id: number; slug: string }[]
  tags: { id: number; slug: string }[]
  /** Some with coordinates, one without. */
  venues: number[]
  organizers: number[]
}

/**
 * Rules some events take after they are made (any start is an occurrence of these): the model
 * matches series rows as it matches events, and reads their edited occurrences' keys.
 */
const SERIES_RULES = ['FREQ=DAILY;COUNT=3', 'FREQ=WEEKLY']

/** Parents are set by id after the events are made (ids start at 1 after each truncate). */
const PARENTS = [1, 2, 3]
/** The venues' coordinates: two near each other, one far, one with none. */
const VENUE_AT = [
  { name: 'Hall', geo_lat: 52.37, geo_lng: 4.89 },
  { name: 'Park', geo_lat: 52.38, geo_lng: 4.9 },
  { name: 'Pier', geo_lat: -33.86, geo_lng: 151.21 },
  { name: 'Barn', geo_lat: null, geo_lng: null },
]

function eventInput(terms: Terms) {
  return fc
    .record({
      title: text,
      description: text,
      start: eventInstant,
      duration: fc.constantFrom(...DURATIONS),
      status: fc.oneof(
        { arbitrary: fc.constant('publish' as const), weight: 4 },
        { arbitrary: fc.constantFrom(...POST_STATUSES), weight: 1 },
      ),
      hidden: fc.constantFrom(false, false, false, true),
      sticky: fc.boolean(),
      featured: fc.boolean(),
      ticketed: fc.boolean(),
      password: fc.option(fc.constant('secret'), { freq: 4 }),
      categories: fc.subarray(
        terms.categories.map((t) => t.id),
        { maxLength: 2 },
      ),
      tags: fc.subarray(
        terms.tags.map((t) => t.id),
        { maxLength: 2 },
      ),
      venue: fc.option(fc.constantFrom(...terms.venues), { freq: 2 }),
      organizers: fc.subarray(terms.organizers, { maxLength: 2 }),
      parent: fc.option(fc.constantFrom(...PARENTS), { freq: 2 }),
      micros: fc.constantFrom(0, 0, 1, 999),
    })
    .map((e): { input: EventInput; micros: number; parent: number | null } => ({
      input: {
        title: e.title || 'untitled',
        description: e.description,
        start: new Date(e.start),
        end: new Date(Math.min(e.start + e.duration, LAST)),
        timezone: 'UTC',
        status: e.status,
        hide_from_listings: e.hidden,
        sticky: e.sticky,
        featured: e.featured,
        ticketed: e.ticketed,
        password: e.password,
        categories: e.categories,
        tags: e.tags,
        venue: e.venue,
        organizers: e.organizers,
      },
      micros: e.micros,
      parent: e.parent,
    }))
}

/** Mostly known ids and slugs; now and then an unknown or foreign one (an error both ways). */
function termRefs(list: { id: number; slug: string }[], foreign: { id: number }[]) {
  return fc.array(
    fc.oneof(
      { arbitrary: fc.constantFrom(...list.map((t) => t.id)), weight: 6 },
      { arbitrary: fc.constantFrom(...list.map((t) => t.slug)), weight: 6 },
      {
        arbitrary: fc.constantFrom<TermRef>(
          0,
          -1,
          2 ** 31,
          'no-such-slug',
          ...foreign.map((t) => t.id),
        ),
        weight: 1,
      },
    ),
    { minLength: 1, maxLength: 3 },
  )
}

/** Each part of a filter present now and then, so most filters still match some events. */
const sometimes = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 5 }, { arbitrary: arb, weight: 1 })

/**
 * A list request: now and then each part (several filters at once), or one part alone over
 * every status and hidden event, so a filter rarely in force in a mix (a valid
 * `post_parent`, say) still decides many lists.
 */
function listFilter(terms: Terms) {
  const at = instant.map((t) => new Date(t))
  // Modification times are the run's own: a bound a moment around now splits them.
  const aroundNow = fc
    .constantFrom(-86_400_000, -1, 0, 86_400_000)
    .map((d) => new Date(Date.now() + d))
  const parts: Record<string, fc.Arbitrary<unknown>> = {
    window: fc.record({ start: sometimes(at), end: sometimes(at) }),
    starts_before: at,
    starts_after: at,
    ends_before: at,
    ends_after: at,
    search: fc.constantFrom('jazz', 'JAZZ ärger', 'İSTANBUL', 'Straße', '%', '_', 'x\\y', '  '),
    privileged: fc.boolean(),
    categories: termRefs(terms.categories, terms.tags),
    tags: termRefs(terms.tags, terms.categories),
    venue: fc.array(fc.constantFrom(...terms.venues, 0, 999_999), { maxLength: 2 }),
    organizer: fc.array(fc.constantFrom(...terms.organizers, 0, 999_999), { maxLength: 2 }),
    featured: fc.boolean(),
    ticketed: fc.boolean(),
    post_parent: fc.constantFrom(...PARENTS, 0, -1, 999_999),
    geoloc: fc.boolean(),
    near: fc.record({
      lat: fc.constantFrom(52.37, -33.86, 90),
      lng: fc.constantFrom(4.89, 151.21, -180),
      radius_km: fc.constantFrom(0, 1.5, 20_000),
    }),
    modified_after: aroundNow,
    modified_before: aroundNow,
    include: fc.array(fc.integer({ min: -1, max: 40 }), { maxLength: 6 }),
    include_hidden: fc.boolean(),
    status: fc.subarray([...POST_STATUSES], { minLength: 1 }),
    sticky_first: fc.boolean(),
  }
  type Part = keyof typeof parts
  const mixed = fc.record(
    Object.fromEntries(Object.entries(parts).map(([k, arb]) => [k, sometimes(arb)])) as {
      [K in Part]: fc.Arbitrary<unknown>
    },
  )
  const alone = fc.constantFrom(...(Object.keys(parts) as Part[])).chain((part) =>
    (parts[part] as fc.Arbitrary<unknown>).map((value) => ({
      status: [...POST_STATUSES],
      include_hidden: true,
      [part]: value,
    })),
  )
  const page = fc.record({
    limit: fc.integer({ min: 1, max: 12 }),
    offset: fc.constantFrom(0, 0, 1, 3, 20),
  })
  return fc.tuple(fc.oneof(mixed, alone), page).map(
    ([f, p]) =>
      ({
        ...Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)),
        ...p,
      }) as EventListFilter,
  )
}

/**
 * A write between lists: a create through the store (new slots, word and term sets grow), or
 * SQL the store does not make itself (another process, say).
 */
const rawWrite = (terms: Terms) =>
  fc.oneof(
    fc.record({ kind: fc.constant('create' as const), event: eventInput(terms) }),
    fc.record({
      kind: fc.constant('shift' as const),
      id: fc.nat(40),
      micros: fc.integer({ min: -2, max: 2 }),
    }),
    fc.record({ kind: fc.constant('delete' as const), id: fc.nat(40) }),
    fc.record({
      kind: fc.constant('status' as const),
      id: fc.nat(40),
      status: fc.constantFrom(...POST_STATUSES),
    }),
    fc.record({ kind: fc.constant('untag' as const), id: fc.nat(40) }),
    fc.record({ kind: fc.constant('retitle' as const), id: fc.nat(40), title: text }),
    fc.record({
      kind: fc.constant('reparent' as const),
      id: fc.nat(40),
      parent: fc.constantFrom(...PARENTS),
    }),
  )
type RawWrite = ReturnType<typeof rawWrite> extends fc.Arbitrary<infer T> ? T : never

async function applyRaw(db: CalDb, store: CalStore, write: RawWrite): Promise<void> {
  if (write.kind === 'create') {
    await store.events.createMany([write.event.input])
  } else if (write.kind === 'shift') {
    await sql`update cal_event set start_utc = start_utc + ${write.micros} * interval '1 microsecond'
      where id = ${write.id} and start_utc + ${write.micros} * interval '1 microsecond' <= end_utc`.execute(
      db,
    )
  } else if (write.kind === 'delete') {
    // A series' edited occurrences go with it (the schema refuses them without their series).
    // Seed 1314510324 on PostgreSQL deleted a series whose second occurrence was edited.
    await db.transaction().execute(async (tx) => {
      await tx
        .deleteFrom('cal_event')
        .where('post_parent', '=', write.id)
        .where('occurrence_key', 'is not', null)
        .execute()
      await tx.deleteFrom('cal_event').where('id', '=', write.id).execute()
    })
  } else if (write.kind === 'status') {
    await db
      .updateTable('cal_event')
      .set({ status: write.status })
      .where('id', '=', write.id)
      .execute()
  } else if (write.kind === 'retitle') {
    await db
      .updateTable('cal_event')
      .set({ title: write.title })
      .where('id', '=', write.id)
      .execute()
  } else if (write.kind === 'reparent') {
    await db
      .updateTable('cal_event')
      .set({ post_parent: write.parent })
      .where('id', '=', write.id)
      .where('id', '!=', write.parent)
      .execute()
  } else {
    await db.deleteFrom('cal_event_term').where('event_id', '=', write.id).execute()
  }
}

/** What a list call gives: the page and total, or the error's kind and field. */
async function outcome(run: () => Promise<{ items: { id: number }[]; total: number }>) {
  try {
    const r = await run()
    return { ids: r.items.map((e) => e.id), total: r.total }
  } catch (error) {
    const e = error as { name?: string; field?: string; message?: string }
    return { error: e.name, field: e.field, message: e.message }
  }
}

/** Deletes the whole change history as the retention trim does, moving its mark. */
async function trimAllChanges(db: CalDb): Promise<void> {
  await sql`with gone as (delete from cal_change where revision is not null)
    update cal_sync set purged_through = (select n from cal_revision)`.execute(db)
}

/** `model` at the revision stored now (the tests write nothing while they read it). */
async function viewNow(db: CalDb, model: EventListModel): Promise<EventListView> {
  const view = await model.exactly(await queryRevision(db), db)
  if (!view) throw new Error('the model is past the stored revision')
  return view
}

/** A list by `model`, by a model loaded now, and by SQL alone (single events only). */
async function threeWays(db: CalDb, model: EventListModel, filter: EventListFilter) {
  const byModel = await outcome(async () => listEvents(db, filter, await viewNow(db, model)))
  const fresh = createEventListModel()
  const byFresh = await outcome(async () => listEvents(db, filter, await viewNow(db, fresh)))
  return { byModel, byFresh, bySql: await sqlSingles(db, filter) }
}

/** `bySql` as `outcome` words it: a ref naming no term is the store's error. */
function sqlOutcome(bySql: Awaited<ReturnType<typeof sqlSingles>>) {
  return 'unknownRef' in bySql ? { error: 'CalUnknownReferenceError' } : bySql
}

describe.each(testDatabases())('event list model on $name', ({ name, open }) => {
  let database: Database
  let store: CalStore
  let db: CalDb
  const terms: Terms = { categories: [], tags: [], venues: [], organizers: [] }

  beforeAll(async () => {
    database = await open(migrateCal)
    store = createCalStore(database)
    await store.migrate()
    db = database.db.withTables<CalSchema>()
    const root = await store.categories.create({ name: 'Music' })
    const child = await store.categories.create({ name: 'Jazz', parent: root.id })
    const grandchild = await store.categories.create({ name: 'Bebop', parent: child.id })
    const other = await store.categories.create({ name: 'Sport' })
    terms.categories = [root, child, grandchild, other]
    terms.tags = [
      await store.tags.create({ name: 'Free' }),
      await store.tags.create({ name: 'Jazz' }),
    ]
    for (const v of VENUE_AT) terms.venues.push((await store.venues.create(v)).id)
    for (const n of ['Ana', 'Ben']) {
      terms.organizers.push((await store.organizers.create({ name: n })).id)
    }
  })
  afterAll(async () => {
    await database?.close()
  })

  it('generates requests that put every registered filter in force', async () => {
    // The property below proves model == SQL only for filters its requests use: a filter
    // added to EVENT_FILTERS without a generator for it fails here.
    const used = new Set<string>()
    // Organizer and modified filters read rows first: some events must carry them.
    await store.events.createMany(
      [0, 1].map((i) => ({
        title: `linked ${i}`,
        start: new Date(Date.UTC(2026, 0, 1)),
        end: new Date(Date.UTC(2026, 0, 2)),
        organizers: terms.organizers,
      })),
    )
    const view = await viewNow(db, createEventListModel())
    for (const filter of fc.sample(listFilter(terms), { numRuns: 300, seed: 27 })) {
      const plan = await planEventList(filter, { ...view, db }).catch(() => null)
      for (const f of plan?.filters ?? []) used.add(f.name)
    }
    expect([...used].sort()).toEqual(EVENT_FILTERS.map((f) => f.name).sort())
  })

  // Found by the property below (seed 1391681380): the plan stopped at the first filter that
  // matches nothing, so a later unknown term went unreported where SQL refuses it.
  it.each([
    [{ include: [], categories: [0] }, 'categories'],
    [{ status: [], tags: [999_999] }, 'tags'],
  ] as const)(
    'refuses an unknown term even when another filter matches nothing: %j',
    async (filter, field) => {
      const view = await viewNow(db, createEventListModel())
      await expect(
        listEvents(db, { ...filter, limit: 1, offset: 0 } as never, view),
      ).rejects.toMatchObject({ name: 'CalUnknownReferenceError', field })
    },
  )

  it('answers every filter as a fresh model and SQL do, across writes, truncates and a trimmed history', async () => {
    const model = createEventListModel()
    const data = fc.record({
      events: fc.array(eventInput(terms), { minLength: 5, maxLength: 40 }),
      steps: fc.array(fc.tuple(listFilter(terms), fc.option(rawWrite(terms), { freq: 2 })), {
        minLength: 1,
        maxLength: 8,
      }),
      prune: fc.boolean(),
      rule: fc.option(fc.constantFrom(...SERIES_RULES), { freq: 2 }),
    })
    await fc.assert(
      fc.asyncProperty(data, async ({ events, steps, prune, rule }) => {
        // A truncate (the model must notice it and reload) and ids from 1 again.
        await sql`truncate cal_event restart identity cascade`.execute(db)
        if (events.length) await store.events.createMany(events.map((e) => e.input))
        // Half the runs make their first event a series (one: a series write is slow on
        // PGlite); refused for some starts (weekly occurrences past 9999): left single.
        const series =
          rule &&
          (await store.events.update(1, { recurrence: { rules: [rule] } }).catch(() => undefined))
        if (series) {
          // An edited second occurrence: an override row, keyed under its series.
          const { items } = await store.events.list({ post_parent: series.id, limit: 2 })
          if (items[1]) await store.events.update(items[1].id, { title: 'edited' })
        }
        for (const [i, e] of events.entries()) {
          if (e.parent !== null && e.parent !== i + 1) {
            await db
              .updateTable('cal_event')
              .set({ post_parent: e.parent })
              .where('id', '=', i + 1)
              .execute()
          }
          if (e.micros) {
            await sql`update cal_event set start_utc = start_utc + ${e.micros} * interval '1 microsecond',
                end_utc = end_utc + ${e.micros} * interval '1 microsecond' where id = ${i + 1}`.execute(
              db,
            )
          }
        }
        // A trimmed history (retention): the model behind the mark must reload.
        if (prune) await trimAllChanges(db)
        for (const [filter, write] of steps) {
          const { byModel, byFresh, bySql } = await threeWays(db, model, filter)
          expect(byModel, JSON.stringify(filter)).toEqual(byFresh)
          // SQL lists single events: it is the oracle while no series is stored, and of every
          // refusal but the store's input checks (which SQL alone does not make).
          const checked = 'error' in byModel && byModel.error === 'CalValidationError'
          if (!series && !checked) {
            const expected = sqlOutcome(bySql)
            if ('error' in expected)
              expect(byModel.error, JSON.stringify(filter)).toBe(expected.error)
            else expect(byModel, JSON.stringify(filter)).toEqual(expected)
          }
          if (write) await applyRaw(db, store, write)
        }
      }),
      {
        numRuns: propertyRuns(name === 'pglite' ? 40 : 60),
        seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31),
      },
    )
  }, 240_000)
})

const pgUrl = process.env.DATABASE_URL

/** Rethrows `error` unless it is a transient conflict (deadlock victim, serialization failure). */
function unlessDeadlock(error: unknown): void {
  if (!isTransientConflict(error)) throw error
}

describe.runIf(pgUrl)('event list model under concurrent writers (PostgreSQL)', () => {
  it('lists while other connections commit, and ends where a fresh model and SQL are', async () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31)
    const rnd = prng(seed)
    const readerDatabase = await (
      testDatabases().find((d) => d.name === 'postgres') as TestDatabase
    ).open()
    const writerDatabase = await secondConnection(readerDatabase)
    try {
      const writer = createCalStore(writerDatabase)
      await writer.migrate()
      const db = readerDatabase.db.withTables<CalSchema>()
      const writerDb = writerDatabase.db.withTables<CalSchema>()
      const categories = [
        await writer.categories.create({ name: 'Music' }),
        await writer.categories.create({ name: 'Sport' }),
      ]
      const base = Date.UTC(2026, 5, 1)
      const input = (i: number): EventInput => ({
        title: `event ${i} ${rnd.chance(0.5) ? 'jazz' : 'run'}`,
        start: new Date(base + rnd.int(0, 500) * 3_600_000),
        end: new Date(base + 500 * 3_600_000),
        status: rnd.chance(0.8) ? 'publish' : 'draft',
        categories: [rnd.pick(categories).id],
      })
      await writer.events.createMany(Array.from({ length: 200 }, (_, i) => input(i)))
      const model = createEventListModel()
      const filters: EventListFilter[] = [
        { limit: 50 },
        { search: 'jazz', limit: 20, offset: 10 },
        { categories: [categories[0]?.slug ?? ''], status: ['publish', 'draft'], limit: 30 },
        { window: { start: new Date(base + 250 * 3_600_000) }, sticky_first: true, limit: 40 },
      ]
      let writing = true
      const writes = Array.from({ length: 6 }, async (_, w) => {
        for (let i = 0; i < 12; i++) {
          const id = rnd.int(1, 200 + 6 * 12 * 3)
          const action = rnd.int(0, 4)
          if (action === 0) await writer.events.create(input(1000 + w * 100 + i))
          else if (action === 1) await writer.events.createMany([input(i), input(i + 1)])
          else if (action === 2) await writer.events.trash(id).catch(() => undefined)
          // Plain statements (no retry): a deadlock victim is a write that did not happen.
          else if (action === 3) {
            await writerDb
              .deleteFrom('cal_event')
              .where('id', '=', id)
              .execute()
              .catch(unlessDeadlock)
          } else {
            await writerDb
              .updateTable('cal_event')
              .set({ sticky: rnd.chance(0.5), hide_from_listings: rnd.chance(0.2) })
              .where('id', '=', id)
              .execute()
              .catch(unlessDeadlock)
          }
        }
      })
      const reads = Array.from({ length: 4 }, async (_, r) => {
        let lists = 0
        let duringWrites = 0
        while (writing || lists === 0) {
          if (writing) duringWrites++
          // Each list in a snapshot, as a reader reads it: the model catches up through it.
          await db
            .transaction()
            .setIsolationLevel('repeatable read')
            .execute(async (trx) => {
              const view = await model.exactly(await queryRevision(trx), trx)
              const filter = filters[(r + lists) % filters.length] as EventListFilter
              // A model that moves on mid-list refuses to answer for the old revision; the store
              // then reads the list again (`eventList` in create-cal-store.ts), so does this loop.
              if (view)
                await listEvents(trx, filter, view).catch((error: unknown) => {
                  if (!(error instanceof ModelMoved)) throw error
                })
            })
          lists++
          // Leave the writers room: four readers in a tight loop starve them on a busy machine.
          await new Promise((resolve) => setTimeout(resolve, 5))
        }
        return duringWrites
      })
      // Every write settles before anything closes (a pool closed under queued queries never
      // returns); a write that lost its deadlock retries is a write that did not happen.
      const settled = await Promise.allSettled(writes)
      writing = false
      for (const result of settled) if (result.status === 'rejected') unlessDeadlock(result.reason)
      // Each reader listed while writes were still in flight: the run raced what it claims to.
      const listedDuringWrites = await Promise.all(reads)
      expect(listedDuringWrites, `seed ${seed}`).not.toContain(0)
      for (const filter of filters) {
        const { byModel, byFresh, bySql } = await threeWays(db, model, filter)
        expect(byModel, `seed ${seed}, filter ${JSON.stringify(filter)}`).toEqual(byFresh)
        expect(byModel, `seed ${seed}, filter ${JSON.stringify(filter)}`).toEqual(bySql)
      }
    } finally {
      await writerDatabase.close()
      await readerDatabase.close()
    }
  }, 120_000)
})
