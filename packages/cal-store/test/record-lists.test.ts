import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type CalStore,
  CalValidationError,
  createCalStore,
  type Term,
  type TermListFilter,
} from '../src/index.js'
import { migrateCal } from '../src/testing.js'

const T = (iso: string) => new Date(iso)

describe.each(testDatabases())('venue, organizer and term lists on $name', ({ open }) => {
  let database: Database
  let store: CalStore
  const ids: Record<string, number> = {}

  beforeAll(async () => {
    database = await open(migrateCal)
    store = createCalStore(database, { now: () => T('2026-03-01T12:00:00Z') })
    await store.migrate()
    const v = async (key: string, input: Parameters<CalStore['venues']['create']>[0]) =>
      (ids[key] = (await store.venues.create(input)).id)
    await v('hall', { name: 'Town Hall', city: 'Delft', address: 'Markt 87' })
    await v('arena', { name: 'arena', description: 'Big indoor hall', zip: '1000 AB' })
    await v('club', { name: 'Club Nul', province: 'Zuid-Holland', status: 'draft' })
    await v('barn', { name: 'Barn', country: 'Belgium' })
    const o = async (key: string, input: Parameters<CalStore['organizers']['create']>[0]) =>
      (ids[key] = (await store.organizers.create(input)).id)
    await o('ann', { name: 'Ann', description: 'Runs the hall' })
    await o('bob', { name: 'bob' })
    await o('cy', { name: 'Cy', status: 'pending' })
    const c = async (key: string, name: string, parent?: string) =>
      (ids[key] = (await store.categories.create({ name, parent: parent ? ids[parent] : null })).id)
    await c('music', 'Music')
    await c('jazz', 'Jazz', 'music')
    await c('rock', 'Rock', 'music')
    await c('sport', 'Sport')
    await c('empty', 'Empty')
    for (const name of ['Zeta', 'alpha', 'Mid']) ids[name] = (await store.tags.create({ name })).id
    const e = (title: string, start: string, extra: Record<string, unknown>) =>
      store.events.create({ title, start: T(start), end: T(start), ...extra })
    ids.e1 = (
      await e('One', '2026-02-01T10:00:00Z', {
        venue: ids.hall,
        organizers: [ids.ann],
        categories: [ids.jazz, ids.music],
        tags: [ids.Zeta, ids.alpha],
      })
    ).id
    ids.e2 = (
      await e('Two', '2026-04-01T10:00:00Z', {
        venue: ids.arena,
        organizers: [ids.bob, ids.ann],
        categories: [ids.jazz],
        tags: [ids.alpha],
      })
    ).id
    // Drafts and trashed events count for nothing.
    ids.e3 = (
      await e('Three', '2026-05-01T10:00:00Z', {
        venue: ids.barn,
        categories: [ids.rock],
        tags: [ids.Mid],
        status: 'draft',
      })
    ).id
    const e4 = await e('Four', '2026-06-01T10:00:00Z', { venue: ids.barn, categories: [ids.sport] })
    await store.events.trash(e4.id)
  })
  afterAll(async () => {
    await database?.close()
  })

  const names = (items: { name: string }[]) => items.map((i) => i.name)

  it('lists venues: name order, search in address fields, events, status', async () => {
    expect(names((await store.venues.list()).items)).toEqual(['arena', 'Barn', 'Town Hall'])
    expect(names((await store.venues.list({ search: 'hall' })).items)).toEqual([
      'arena',
      'Town Hall',
    ])
    expect(names((await store.venues.list({ search: 'markt delft' })).items)).toEqual(['Town Hall'])
    expect(names((await store.venues.list({ search: '1000' })).items)).toEqual(['arena'])
    expect(names((await store.venues.list({ search: 'belgium' })).items)).toEqual(['Barn'])
    expect(names((await store.venues.list({ search: 'zuid', status: ['draft'] })).items)).toEqual([
      'Club Nul',
    ])
    expect(names((await store.venues.list({ has_events: true })).items)).toEqual([
      'arena',
      'Town Hall',
    ])
    expect(names((await store.venues.list({ has_events: false })).items)).toEqual(['Barn'])
    expect(
      names((await store.venues.list({ upcoming_after: T('2026-03-01T00:00:00Z') })).items),
    ).toEqual(['arena'])
    expect(names((await store.venues.list({ event: ids.e2 })).items)).toEqual(['arena'])
    expect(names((await store.venues.list({ event: 2 ** 40 })).items)).toEqual([])
    const page = await store.venues.list({ limit: 2, offset: 1, status: ['publish', 'draft'] })
    expect(page).toMatchObject({ total: 4 })
    expect(names(page.items)).toEqual(['Barn', 'Club Nul'])
    expect((await store.venues.list({ status: [] })).total).toBe(0)
  })

  it('lists organizers: search, event, has_events, upcoming, status', async () => {
    expect(names((await store.organizers.list()).items)).toEqual(['Ann', 'bob'])
    expect(names((await store.organizers.list({ search: 'HALL' })).items)).toEqual(['Ann'])
    expect(names((await store.organizers.list({ event: ids.e2 })).items)).toEqual(['Ann', 'bob'])
    expect(
      names((await store.organizers.list({ has_events: false, status: ['pending'] })).items),
    ).toEqual(['Cy'])
    expect(
      names((await store.organizers.list({ upcoming_after: T('2026-03-01T00:00:00Z') })).items),
    ).toEqual(['Ann', 'bob'])
    expect(
      names((await store.organizers.list({ upcoming_after: T('2026-04-02T00:00:00Z') })).items),
    ).toEqual([])
    expect((await store.events.get(ids.e2 as number))?.organizer_ids).toEqual([ids.bob, ids.ann])
  })

  it('lists terms with counts of published events only', async () => {
    const counts = (items: Term[]) => Object.fromEntries(items.map((t) => [t.name, t.count]))
    expect(counts((await store.categories.list({ hide_empty: false })).items)).toEqual({
      Empty: 0,
      Jazz: 2,
      Music: 1,
      Rock: 0,
      Sport: 0,
    })
    // hide_empty defaults to true.
    expect(names((await store.categories.list()).items)).toEqual(['Jazz', 'Music'])
    expect(names((await store.tags.list()).items)).toEqual(['alpha', 'Zeta'])
  })

  it('applies every term filter and ordering', async () => {
    const list = async (filter: TermListFilter) =>
      names((await store.categories.list({ hide_empty: false, ...filter })).items)
    expect(await list({ parent: ids.music })).toEqual(['Jazz', 'Rock'])
    expect(await list({ parent: 0 })).toEqual(['Empty', 'Music', 'Sport'])
    expect(await list({ search: 'us' })).toEqual(['Music'])
    expect(await list({ search: 'ROCK' })).toEqual(['Rock'])
    expect(await list({ exclude: [ids.music as number, ids.rock as number] })).toEqual([
      'Empty',
      'Jazz',
      'Sport',
    ])
    expect(await list({ include: [ids.sport as number, ids.jazz as number] })).toEqual([
      'Jazz',
      'Sport',
    ])
    expect(
      await list({
        include: [ids.sport as number, ids.empty as number, ids.jazz as number],
        orderby: 'include',
      }),
    ).toEqual(['Sport', 'Empty', 'Jazz'])
    expect(await list({ orderby: 'id', order: 'desc' })).toEqual([
      'Empty',
      'Sport',
      'Rock',
      'Jazz',
      'Music',
    ])
    expect(await list({ orderby: 'slug' })).toEqual(['Empty', 'Jazz', 'Music', 'Rock', 'Sport'])
    // Ties break on id ascending.
    expect(await list({ orderby: 'count', order: 'desc' })).toEqual([
      'Jazz',
      'Music',
      'Rock',
      'Sport',
      'Empty',
    ])
    expect(await list({ orderby: 'name', order: 'desc' })).toEqual([
      'Sport',
      'Rock',
      'Music',
      'Jazz',
      'Empty',
    ])
    expect(await list({ event: ids.e1 })).toEqual(['Jazz', 'Music'])
    expect(await list({ event: ids.e3 })).toEqual(['Rock'])
    expect(await list({ slug: ['rock', 'sport', 'nope'] })).toEqual(['Rock', 'Sport'])
    expect(await list({ slug: 'jazz' })).toEqual(['Jazz'])
    const page = await store.categories.list({ hide_empty: false, limit: 2, offset: 2 })
    expect(page.total).toBe(5)
    expect(names(page.items)).toEqual(['Music', 'Rock'])
    expect(names((await store.tags.list({ orderby: 'name' })).items)).toEqual(['alpha', 'Zeta'])
  })

  it('rejects input PostgreSQL cannot take with a validation error, never a database error', async () => {
    await expect(store.venues.create({ name: 'a\u0000b' })).rejects.toBeInstanceOf(
      CalValidationError,
    )
    await expect(store.tags.create({ name: 'x'.repeat(501) })).rejects.toBeInstanceOf(
      CalValidationError,
    )
    await expect(
      store.events.create({
        title: 'ok',
        start: T('2026-01-01T00:00:00Z'),
        end: T('2026-01-01T00:00:00Z'),
        author: 2 ** 40,
      }),
    ).rejects.toMatchObject({ field: 'author' })
    await expect(
      store.events.create({
        title: 'ok',
        start: new Date(Number.NaN),
        end: T('2026-01-01T00:00:00Z'),
      }),
    ).rejects.toMatchObject({ field: 'start_date' })
    await expect(store.events.list({ search: 'a\u0000' })).rejects.toBeInstanceOf(
      CalValidationError,
    )
    await expect(store.events.list({ starts_before: new Date(Number.NaN) })).rejects.toBeInstanceOf(
      CalValidationError,
    )
    expect(await store.events.list({ post_parent: 2 ** 40 })).toEqual({ items: [], total: 0 })
    expect(await store.events.get(2 ** 40)).toBeUndefined()
    expect(await store.events.getBySlug('a\u0000')).toBeUndefined()
    await expect(store.venues.update(2 ** 40, { name: 'x' })).rejects.toMatchObject({
      kind: 'venue',
    })
    await expect(store.events.update(-1, { title: 'x' })).rejects.toMatchObject({ kind: 'event' })
    await expect(store.categories.delete(2 ** 40)).rejects.toMatchObject({ kind: 'category' })
    const big = await store.events.list({ limit: 1e12, offset: 1e20 })
    expect(big.items).toEqual([])
    const many = Array.from({ length: 10_001 }, (_, i) => i + 1)
    await expect(store.events.list({ include: many })).rejects.toMatchObject({ field: 'include' })
    // Reads by id take any number (the relations a page of events names): one array parameter.
    const venue = await store.venues.create({ name: 'Among many' })
    const found = await store.venues.getMany([...many, venue.id, 70_000])
    expect(found.map((v) => v.id)).toContain(venue.id)
    await expect(store.tags.list({ slug: many.map(String) })).rejects.toMatchObject({
      field: 'slug',
    })
    expect((await store.events.getMany(many.slice(0, 10_000))).length).toBeGreaterThan(0)
  })
})
