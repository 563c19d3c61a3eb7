import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type CalStore,
  CalUnknownReferenceError,
  createCalStore,
  type EventInput,
  type EventListFilter,
  type PostStatus,
} from '../src/index.js'
import { migrateCal, prng } from '../src/testing.js'

const EVENTS = 2000
const DAY = 86_400_000
const BASE = Date.UTC(2026, 0, 1)
const WORDS = [
  'jazz',
  'night',
  'park',
  'brunch',
  'quartet',
  'run',
  'market',
  'film',
  'talk',
  'dance',
]
const STATUSES: PostStatus[] = [
  'publish',
  'publish',
  'publish',
  'publish',
  'draft',
  'private',
  'trash',
]

/** What the test knows about each event, kept independently of the store. */
interface Model {
  id: number
  title: string
  description: string
  excerpt: string
  start: number
  end: number
  status: PostStatus
  featured: boolean
  ticketed: boolean
  sticky: boolean
  hidden: boolean
  password: boolean
  venue: number | null
  organizers: number[]
  terms: number[]
  parent: number | null
}

interface VenueModel {
  id: number
  lat: number | null
  lng: number | null
}

function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const r = (d: number) => (d * Math.PI) / 180
  const a =
    Math.sin(r(lat2 - lat1) / 2) ** 2 +
    Math.cos(r(lat1)) * Math.cos(r(lat2)) * Math.sin(r(lng2 - lng1) / 2) ** 2
  return 6371 * 2 * Math.asin(Math.min(1, Math.sqrt(a)))
}

describe.each(testDatabases())('event lists on $name (2,000 events)', ({ open }) => {
  let database: Database
  let store: CalStore
  const model: Model[] = []
  const venues: VenueModel[] = []
  const organizerIds: number[] = []
  const categoryIds: number[] = []
  const tagIds: number[] = []
  const slugOf = new Map<number, string>()
  const rnd = prng(20260301)

  beforeAll(async () => {
    database = await open(migrateCal)
    store = createCalStore(database)
    await store.migrate()
    for (let i = 0; i < 12; i++) {
      const hasGeo = i % 4 !== 3
      const v = await store.venues.create({
        name: `Venue ${i}`,
        geo_lat: hasGeo ? 52 + (i - 6) * 0.15 : null,
        geo_lng: hasGeo ? 4.9 + (i - 6) * 0.1 : null,
      })
      venues.push({ id: v.id, lat: v.geo_lat, lng: v.geo_lng })
    }
    for (let i = 0; i < 8; i++)
      organizerIds.push((await store.organizers.create({ name: `Org ${i}` })).id)
    for (let i = 0; i < 6; i++) {
      const c = await store.categories.create({ name: `Cat ${i}` })
      categoryIds.push(c.id)
      slugOf.set(c.id, c.slug)
    }
    for (let i = 0; i < 6; i++) {
      const t = await store.tags.create({ name: `Tag ${i}` })
      tagIds.push(t.id)
      slugOf.set(t.id, t.slug)
    }
    const parents = [
      await store.events.create({
        title: 'Series A',
        start: new Date(BASE),
        end: new Date(BASE),
        status: 'draft',
      }),
      await store.events.create({
        title: 'Series B',
        start: new Date(BASE),
        end: new Date(BASE),
        status: 'draft',
      }),
    ]
    for (const p of parents) {
      model.push({
        id: p.id,
        title: p.title,
        description: '',
        excerpt: '',
        start: BASE,
        end: BASE,
        status: 'draft',
        featured: false,
        ticketed: false,
        sticky: false,
        hidden: false,
        password: false,
        venue: null,
        organizers: [],
        terms: [],
        parent: null,
      })
    }
    const inputs: EventInput[] = []
    const drafts: Omit<Model, 'id'>[] = []
    for (let i = 0; i < EVENTS; i++) {
      const start = BASE + rnd.int(0, 365 * 24) * 3_600_000
      const end = start + rnd.pick([0, 1, 2, 3, 24, 72, 24 * 10]) * 3_600_000
      const title = `${rnd.pick(WORDS)} ${rnd.pick(WORDS)} ${i % 97 === 0 ? '100%' : ''}`.trim()
      const description = rnd.chance(0.5) ? `All about ${rnd.pick(WORDS).toUpperCase()}` : ''
      const excerpt = rnd.chance(0.3) ? `Short ${rnd.pick(WORDS)}` : ''
      const venue = rnd.chance(0.8) ? rnd.pick(venues).id : null
      const organizers = rnd.some(organizerIds, 0.2)
      const cats = rnd.some(categoryIds, 0.2)
      const tags = rnd.some(tagIds, 0.15)
      const m: Omit<Model, 'id'> = {
        title,
        description,
        excerpt,
        start,
        end,
        status: rnd.pick(STATUSES),
        featured: rnd.chance(0.1),
        ticketed: rnd.chance(0.3),
        sticky: rnd.chance(0.05),
        hidden: rnd.chance(0.05),
        password: rnd.chance(0.05),
        venue,
        organizers,
        terms: [...cats, ...tags],
        parent: rnd.chance(0.1) ? rnd.pick(parents).id : null,
      }
      drafts.push(m)
      inputs.push({
        title,
        description,
        excerpt,
        start: new Date(start),
        end: new Date(end),
        status: m.status,
        featured: m.featured,
        ticketed: m.ticketed,
        sticky: m.sticky,
        hide_from_listings: m.hidden,
        password: m.password ? 'pw' : null,
        venue,
        organizers,
        categories: cats,
        tags,
        post_parent: m.parent,
      })
    }
    const ids = await store.events.createMany(inputs)
    expect(ids).toHaveLength(EVENTS)
    for (const [i, id] of ids.entries()) model.push({ ...(drafts[i] as Omit<Model, 'id'>), id })
  })

  afterAll(async () => {
    await database?.close()
  })

  /** The expected ids and total for a filter, computed from the model alone. */
  function expected(filter: EventListFilter): { ids: number[]; total: number } {
    const statuses = filter.status ?? ['publish']
    const words = (filter.search ?? '').split(/\s+/).filter(Boolean)
    const resolve = (refs: (number | string)[] | undefined) =>
      refs?.map((r) => (typeof r === 'number' ? r : [...slugOf].find(([, s]) => s === r)?.[0]))
    const cats = resolve(filter.categories)
    const tags = resolve(filter.tags)
    const venueOf = new Map(venues.map((v) => [v.id, v]))
    const rows = model.filter((e) => {
      if (!statuses.includes(e.status)) return false
      if (filter.include) {
        if (!filter.include.includes(e.id)) return false
      } else {
        if (filter.window?.start && e.end < filter.window.start.getTime()) return false
        if (filter.window?.end && e.start > filter.window.end.getTime()) return false
        if (filter.starts_before && !(e.start < filter.starts_before.getTime())) return false
        if (filter.starts_after && !(e.start > filter.starts_after.getTime())) return false
        if (filter.ends_before && !(e.end < filter.ends_before.getTime())) return false
        if (filter.ends_after && !(e.end > filter.ends_after.getTime())) return false
        if (!filter.include_hidden && e.hidden) return false
      }
      if (words.length > 0) {
        if (e.password && !filter.privileged) return false
        const text = [e.title, e.description, e.excerpt].map((t) => t.toLowerCase())
        if (!words.every((w) => text.some((t) => t.includes(w.toLowerCase())))) return false
      }
      if (cats && !cats.some((c) => c !== undefined && e.terms.includes(c))) return false
      if (tags && !tags.some((c) => c !== undefined && e.terms.includes(c))) return false
      if (filter.venue && (e.venue === null || !filter.venue.includes(e.venue))) return false
      if (filter.organizer && !filter.organizer.some((o) => e.organizers.includes(o))) return false
      if (filter.featured !== undefined && e.featured !== filter.featured) return false
      if (filter.ticketed !== undefined && e.ticketed !== filter.ticketed) return false
      if (filter.post_parent !== undefined && e.parent !== filter.post_parent) return false
      if (filter.geoloc || filter.near) {
        const v = e.venue === null ? undefined : venueOf.get(e.venue)
        if (!v || v.lat === null || v.lng === null) return false
        const near = filter.near
        if (near && haversineKm(near.lat, near.lng, v.lat, v.lng) > near.radius_km) return false
      }
      return true
    })
    rows.sort(
      (a, b) =>
        (filter.sticky_first ? Number(b.sticky) - Number(a.sticky) : 0) ||
        a.start - b.start ||
        a.id - b.id,
    )
    const offset = filter.offset ?? 0
    const limit = filter.limit ?? 10
    return { ids: rows.slice(offset, offset + limit).map((e) => e.id), total: rows.length }
  }

  async function check(filter: EventListFilter) {
    const want = expected(filter)
    const result = await store.events.list(filter)
    expect({ filter, ids: result.items.map((e) => e.id), total: result.total }).toEqual({
      filter,
      ...want,
    })
    return result
  }

  it('lists with the default status and paging totals', async () => {
    const all = await check({ limit: 50 })
    expect(all.total).toBeGreaterThan(1000)
    const last = Math.floor(all.total / 50) * 50
    const tail = await check({ limit: 50, offset: last })
    expect(tail.items.length).toBe(all.total - last)
    expect((await check({ limit: 50, offset: all.total + 10 })).items).toEqual([])
  })

  it('applies the overlap window and the exclusive bounds', async () => {
    const d = (day: number, hour = 0) => new Date(BASE + day * DAY + hour * 3_600_000)
    await check({ window: { start: d(100), end: d(101) }, limit: 100 })
    await check({ window: { start: d(200) }, limit: 20, offset: 40 })
    await check({ window: { end: d(20) }, limit: 100 })
    await check({ starts_after: d(50), starts_before: d(52), limit: 100 })
    await check({ ends_after: d(300), ends_before: d(301, 12), limit: 100 })
    // Exclusive: an event starting exactly on the bound is out.
    const some = model.find((e) => e.status === 'publish' && !e.hidden && e.start > BASE + 10 * DAY)
    if (!some) throw new Error('no sample event')
    const r = await check({
      starts_after: new Date(some.start),
      starts_before: new Date(some.start + 1),
      limit: 50,
    })
    expect(r.items.map((e) => e.id)).not.toContain(some.id)
    const r2 = await check({
      window: { start: new Date(some.end), end: new Date(some.start) },
      limit: 50,
      include_hidden: true,
    })
    expect(r2.items.map((e) => e.id)).toContain(some.id)
  })

  it('searches all words case-insensitively, never inside protected events unless privileged', async () => {
    await check({ search: 'JAZZ', limit: 50 })
    await check({ search: 'jazz night', limit: 50, offset: 5 })
    await check({ search: 'short park', limit: 50 })
    await check({ search: 'jazz night', limit: 50, privileged: true, status: ['publish', 'draft'] })
    const pct = await check({ search: '100%', limit: 50, status: ['publish', 'draft', 'private'] })
    expect(pct.total).toBeGreaterThan(0)
    expect((await check({ search: 'jazz_', limit: 50 })).total).toBe(0)
  })

  it('filters by categories and tags (ids or slugs, any-of), venues, organizers, flags', async () => {
    const [c0, c1] = categoryIds as [number, number]
    const [t0] = tagIds as [number]
    await check({ categories: [c0], limit: 50 })
    await check({ categories: [c0, slugOf.get(c1) as string], limit: 50 })
    await check({ tags: [t0], categories: [c1], limit: 50 })
    await check({ venue: [venues[0]?.id as number, venues[5]?.id as number], limit: 50 })
    await check({ organizer: [organizerIds[2] as number], limit: 50, offset: 10 })
    await check({ featured: true, limit: 50 })
    await check({ ticketed: false, featured: false, limit: 20, offset: 20 })
    await expect(store.events.list({ categories: [99999] })).rejects.toBeInstanceOf(
      CalUnknownReferenceError,
    )
    await expect(store.events.list({ tags: ['no-such-tag'] })).rejects.toMatchObject({
      field: 'tags',
    })
    // A category id is not a tag.
    await expect(store.events.list({ tags: [c0] })).rejects.toBeInstanceOf(CalUnknownReferenceError)
  })

  it('filters by include (dates ignored, hidden shown), post_parent, status, sticky ordering', async () => {
    const hidden = model
      .filter((e) => e.hidden && e.status === 'publish')
      .slice(0, 3)
      .map((e) => e.id)
    const ids = [...hidden, ...model.slice(10, 20).map((e) => e.id)]
    const r = await check({
      include: ids,
      window: { start: new Date(BASE + 400 * DAY) },
      limit: 50,
    })
    expect(r.items.map((e) => e.id)).toEqual(expect.arrayContaining(hidden))
    await check({ include: ids, featured: false, limit: 50 })
    await check({ post_parent: model[0]?.id as number, limit: 50 })
    await check({ post_parent: model[1]?.id as number, status: ['publish', 'draft'], limit: 50 })
    await check({ status: ['draft', 'private'], limit: 30, offset: 30 })
    await check({ status: ['trash'], limit: 10 })
    const sticky = await check({ sticky_first: true, limit: 50 })
    expect(sticky.items[0]?.sticky).toBe(true)
    await check({ include_hidden: true, limit: 50, offset: 100 })
  })

  it('filters by geolocation and great-circle radius', async () => {
    await check({ geoloc: true, limit: 50 })
    for (const radius_km of [1, 12, 25, 60, 500]) {
      await check({ near: { lat: 52, lng: 4.9, radius_km }, limit: 50 })
    }
    await check({
      near: { lat: 51.5, lng: 4.4, radius_km: 40 },
      featured: false,
      limit: 50,
      offset: 3,
    })
  })

  it('agrees with the model on random filter combinations', async () => {
    const r = prng(7)
    for (let i = 0; i < 40; i++) {
      const filter: EventListFilter = { limit: r.int(1, 40), offset: r.int(0, 30) }
      if (r.chance(0.5)) {
        const a = BASE + r.int(0, 365) * DAY
        filter.window = { start: new Date(a), end: new Date(a + r.int(1, 60) * DAY) }
      }
      if (r.chance(0.2)) filter.starts_after = new Date(BASE + r.int(0, 200) * DAY)
      if (r.chance(0.2)) filter.ends_before = new Date(BASE + r.int(150, 365) * DAY)
      if (r.chance(0.3)) filter.search = r.some(WORDS, 0.15).join(' ')
      if (r.chance(0.3)) filter.categories = r.some(categoryIds, 0.3)
      if (r.chance(0.2)) filter.tags = r.some(tagIds, 0.3)
      if (r.chance(0.2)) filter.venue = r.some(venues, 0.3).map((v) => v.id)
      if (r.chance(0.2)) filter.organizer = r.some(organizerIds, 0.3)
      if (r.chance(0.2)) filter.featured = r.chance(0.5)
      if (r.chance(0.2)) filter.ticketed = r.chance(0.5)
      if (r.chance(0.2)) filter.near = { lat: 52, lng: 4.9, radius_km: r.int(5, 80) }
      if (r.chance(0.2))
        filter.status = r.some(['publish', 'draft', 'private', 'trash'] as PostStatus[], 0.5)
      if (r.chance(0.2)) filter.sticky_first = true
      if (r.chance(0.2)) filter.privileged = true
      if (r.chance(0.2)) filter.include_hidden = true
      await check(filter)
    }
  })

  it('counts published events per term and hides empty terms', async () => {
    const published = model.filter((e) => e.status === 'publish')
    const all = await store.categories.list({ hide_empty: false, limit: 50 })
    expect(all.total).toBe(categoryIds.length)
    for (const term of all.items) {
      expect(term.count).toBe(published.filter((e) => e.terms.includes(term.id)).length)
    }
    const byCount = await store.tags.list({
      orderby: 'count',
      order: 'desc',
      hide_empty: false,
      limit: 50,
    })
    const counts = byCount.items.map((t) => t.count)
    expect(counts).toEqual([...counts].sort((a, b) => b - a))
    for (const t of byCount.items) {
      expect(t.count).toBe(published.filter((e) => e.terms.includes(t.id)).length)
    }
  })

  it('filters venues and organizers by events', async () => {
    const published = model.filter((e) => e.status === 'publish')
    const withEvents = new Set(published.flatMap((e) => (e.venue === null ? [] : [e.venue])))
    const r = await store.venues.list({ has_events: true, limit: 50 })
    expect(r.items.map((v) => v.id).sort((a, b) => a - b)).toEqual(
      [...withEvents].sort((a, b) => a - b),
    )
    const cut = new Date(BASE + 330 * DAY)
    const upcoming = new Set(
      published
        .filter((e) => e.end > cut.getTime() && e.venue !== null)
        .map((e) => e.venue as number),
    )
    const u = await store.venues.list({ upcoming_after: cut, limit: 50 })
    expect(u.total).toBe(upcoming.size)
    const e = model.find((x) => x.organizers.length > 1) as Model
    const orgs = await store.organizers.list({ event: e.id, limit: 50 })
    expect(orgs.items.map((o) => o.id).sort((a, b) => a - b)).toEqual(
      [...e.organizers].sort((a, b) => a - b),
    )
    const orgUpcoming = new Set(
      published.filter((x) => x.end > cut.getTime()).flatMap((x) => x.organizers),
    )
    expect((await store.organizers.list({ upcoming_after: cut, limit: 50 })).total).toBe(
      orgUpcoming.size,
    )
  })
})
