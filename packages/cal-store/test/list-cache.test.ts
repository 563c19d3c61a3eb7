import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type CalStore, createCalStore } from '../src/index.js'
import { createListCache } from '../src/list-cache.js'
import { queryRevision } from '../src/revision.js'
import type { CalSchema } from '../src/schema.js'
import type { CalDb } from '../src/store-context.js'

const T = (iso: string) => new Date(iso)
const WINDOW = { window: { start: T('2026-01-01T00:00:00Z') }, limit: 50 }

describe.each(testDatabases())('event list cache on $name', ({ open }) => {
  let database: Database
  let store: CalStore
  let db: CalDb
  const revision = async () =>
    Number((await db.selectFrom('cal_revision').select('n').executeTakeFirstOrThrow()).n)
  const event = (title: string, day = 10) => ({
    title,
    start: T(`2026-05-${day}T18:00:00Z`),
    end: T(`2026-05-${day}T20:00:00Z`),
  })

  beforeAll(async () => {
    database = await open()
    store = createCalStore(database)
    await store.migrate()
    db = database.db.withTables<CalSchema>()
  })
  afterAll(async () => {
    await database?.close()
  })
  beforeEach(async () => {
    await sql`truncate cal_event_term, cal_event_organizer, cal_event, cal_term, cal_venue, cal_organizer restart identity cascade`.execute(
      db,
    )
  })

  it('bumps the revision once per committed transaction, never on a rollback', async () => {
    const before = await revision()
    await store.events.createMany(Array.from({ length: 120 }, (_, i) => event(`Bulk ${i}`)))
    expect(await revision()).toBe(before + 1)
    await store.events.create({ ...event('Single'), categories: ['New category'], tags: ['x'] })
    expect(await revision()).toBe(before + 2)
    await db
      .transaction()
      .execute(async (trx) => {
        await sql`update cal_event set title = 'never'`.execute(trx)
        throw new Error('roll back')
      })
      .catch(() => undefined)
    expect(await revision()).toBe(before + 2)
    await store.events.list(WINDOW)
    expect(await revision()).toBe(before + 2)
    // A refused write that reached SQL as a zero-row UPDATE changes nothing, revision included.
    const trashed = await store.events.create(event('Gone'))
    await store.events.trash(trashed.id)
    await expect(store.events.trash(trashed.id)).rejects.toThrow()
    expect(await revision()).toBe(before + 4)
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from cal_dirty`.execute(db)
    expect(rows[0]?.n).toBe(0)
  })

  it('serves a repeated list from the cache until any writer commits', async () => {
    let runs = 0
    const cache = createListCache<{ id: number }>(() => queryRevision(db))
    const compute = async () => {
      runs++
      const rows = await db.selectFrom('cal_event').select('id').orderBy('id').execute()
      return { items: rows, total: rows.length }
    }
    await store.events.create(event('First'))
    const [a, b] = await Promise.all([cache.get('k', compute), cache.get('k', compute)])
    expect(runs).toBe(1)
    expect(b).toEqual(a)
    a.items.push({ id: -1 })
    expect((await cache.get('k', compute)).items).toHaveLength(1)
    expect(runs).toBe(1)
    await cache.get('other key', compute)
    expect(runs).toBe(2)
    // A write outside any store (a script, psql) is seen all the same.
    await sql`insert into cal_event (status, created, modified, title, slug, start_utc, end_utc, timezone)
      values ('publish', now(), now(), 'Raw', 'raw', now(), now(), 'UTC')`.execute(db)
    expect((await cache.get('k', compute)).items).toHaveLength(2)
    expect(runs).toBe(3)
  })

  it('never answers a list with data older than the last committed write', async () => {
    const other = createCalStore(database) // another process's store: its own cache
    const first = await store.events.create(event('Jazz night'))
    expect((await store.events.list(WINDOW)).items.map((e) => e.title)).toEqual(['Jazz night'])

    await other.events.update(first.id, { title: 'Opera night' })
    expect((await store.events.list(WINDOW)).items.map((e) => e.title)).toEqual(['Opera night'])

    await other.events.create(event('Salsa', 11))
    expect((await store.events.list(WINDOW)).total).toBe(2)

    await other.events.trash(first.id)
    expect((await store.events.list(WINDOW)).items.map((e) => e.title)).toEqual(['Salsa'])

    // Relations count too, and so do writes made by hand.
    const venue = await other.venues.create({ name: 'Hall' })
    const salsa = (await store.events.list(WINDOW)).items[0]
    await other.events.update(salsa?.id as number, { venue: venue.id })
    expect((await store.events.list(WINDOW)).items[0]?.venue_id).toBe(venue.id)
    expect((await store.events.list({ ...WINDOW, venue: [venue.id] })).total).toBe(1)
    await sql`update cal_event set venue_id = null`.execute(db)
    expect((await store.events.list({ ...WINDOW, venue: [venue.id] })).total).toBe(0)
  })

  it('hands out copies and caches per filter, password rules included', async () => {
    await store.events.create({ ...event('Secret jazz'), password: 'pw' })
    await store.events.create(event('Open jazz', 11))
    const listed = await store.events.list({ ...WINDOW, search: 'jazz' })
    expect(listed.items.map((e) => e.title)).toEqual(['Open jazz'])
    ;(listed.items[0] as { title: string }).title = 'mutated'
    const again = await store.events.list({ ...WINDOW, search: 'jazz' })
    expect(again.items.map((e) => e.title)).toEqual(['Open jazz'])
    const privileged = await store.events.list({ ...WINDOW, search: 'jazz', privileged: true })
    expect(privileged.total).toBe(2)
  })

  it('can be turned off', async () => {
    const uncached = createCalStore(database, { listCache: false })
    await uncached.events.create(event('One'))
    expect((await uncached.events.list(WINDOW)).total).toBe(1)
  })
})
