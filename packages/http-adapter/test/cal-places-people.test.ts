import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalHarness, ids, openCal } from './cal-harness.js'

const VENUE_FIELDS = [
  'id',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'rest_url',
  'venue',
  'slug',
  'description',
  'image',
  'show_map',
  'show_map_link',
  'address',
  'city',
  'country',
  'province',
  'state',
  'zip',
  'phone',
  'stateprovince',
  'website',
  'geo_lat',
  'geo_lng',
]
const ORGANIZER_FIELDS = [
  'id',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'rest_url',
  'organizer',
  'slug',
  'description',
  'image',
  'phone',
  'website',
  'email',
]

describe.each(testDatabases())('calendar venues and organizers on $name', ({ open }) => {
  let t: CalHarness
  const id: Record<string, number> = {}

  beforeAll(async () => {
    t = await openCal(open)
    id.hall = (
      await t.create('/venues', {
        venue: 'Town Hall',
        address: '1 Main Street',
        city: 'Springfield',
      })
    ).body.id
    id.barn = (await t.create('/venues', { venue: 'Old Barn', description: 'wooden' })).body.id
    id.arena = (await t.create('/venues', { venue: 'arena', status: 'draft' })).body.id
    id.ann = (
      await t.create('/organizers', { organizer: 'Ann', description: 'plays cello' })
    ).body.id
    id.bob = (await t.create('/organizers', { organizer: 'Bob' })).body.id
    id.past = (
      await t.create('/events', {
        title: 'Past Show',
        start_date: '2026-02-01 10:00:00',
        end_date: '2026-02-01 11:00:00',
        venue: id.barn,
        organizer: [id.bob],
      })
    ).body.id
    id.future = (
      await t.create('/events', {
        title: 'Future Show',
        start_date: '2026-04-01 10:00:00',
        end_date: '2026-04-01 11:00:00',
        venue: id.hall,
        organizer: [id.ann],
      })
    ).body.id
  })
  afterAll(() => t?.close())

  it('renders venues and organizers with every field, empty ones as ""', async () => {
    const venue = await t.get(`/venues/${id.barn}`)
    expect(Object.keys(venue.body).sort()).toEqual([...VENUE_FIELDS].sort())
    expect(venue.body).toMatchObject({
      venue: 'Old Barn',
      slug: 'old-barn',
      url: 'http://cal.test/venue/old-barn/',
      address: '',
      stateprovince: '',
      geo_lat: '',
      image: false,
    })
    const organizer = await t.get(`/organizers/${id.ann}`)
    expect(Object.keys(organizer.body).sort()).toEqual([...ORGANIZER_FIELDS].sort())
    expect(organizer.body).toMatchObject({ organizer: 'Ann', email: '', phone: '', website: '' })
    expect((await t.get('/venues/by-slug/town-hall')).body.id).toBe(id.hall)
    expect((await t.get('/organizers/by-slug/bob')).body.id).toBe(id.bob)
    expect((await t.get('/venues/999999')).body.code).toBe('venue-not-found')
    expect((await t.get('/organizers/by-slug/nobody')).body.code).toBe('organizer-not-found')
    expect((await t.get(`/venues/${id.arena}`)).body.code).toBe('venue-not-accessible')
    expect((await t.get(`/venues/${id.arena}`, true)).status).toBe(200)
  })

  it('lists venues by name with search, event, has_events, only_with_upcoming, status', async () => {
    const all = await t.get('/venues')
    expect(ids(all, 'venues')).toEqual([id.barn, id.hall])
    expect(all.headers.get('x-cal-total')).toBe('2')
    expect(ids(await t.get('/venues?search=main street'), 'venues')).toEqual([id.hall])
    expect(ids(await t.get('/venues?search=WOODEN'), 'venues')).toEqual([id.barn])
    expect(ids(await t.get(`/venues?event=${id.future}`), 'venues')).toEqual([id.hall])
    expect(ids(await t.get('/venues?has_events=true'), 'venues')).toEqual([id.barn, id.hall])
    expect(ids(await t.get('/venues?only_with_upcoming=true'), 'venues')).toEqual([id.hall])
    expect((await t.get('/venues?status=draft')).status).toBe(401)
    expect(ids(await t.get('/venues?status=draft', true), 'venues')).toEqual([id.arena])
    const paged = await t.get('/venues?per_page=1&page=2')
    expect(ids(paged, 'venues')).toEqual([id.hall])
    expect(paged.body.previous_rest_url).toBe('http://cal.test/cal/events/v1/venues?per_page=1')
    expect((await t.get('/venues?per_page=1&page=3')).body.code).toBe(
      'venue-archive-page-not-found',
    )
  })

  it('lists organizers with the same filters', async () => {
    expect(ids(await t.get('/organizers'), 'organizers')).toEqual([id.ann, id.bob])
    expect(ids(await t.get('/organizers?search=cello'), 'organizers')).toEqual([id.ann])
    expect(ids(await t.get(`/organizers?event=${id.past}`), 'organizers')).toEqual([id.bob])
    expect(ids(await t.get('/organizers?only_with_upcoming=1'), 'organizers')).toEqual([id.ann])
    const empty = await t.get('/organizers?search=nobody-here')
    expect(empty.body).toMatchObject({ organizers: [], total: 0, total_pages: 0 })
    expect((await t.get('/organizers?page=2&search=nobody-here')).body.code).toBe(
      'organizer-archive-page-not-found',
    )
  })

  it('creates, updates partially and trashes venues and organizers', async () => {
    const created = await t.create('/venues', {
      venue: 'Town Hall',
      stateprovince: 'Ontario',
      website: 'https://hall.example.org',
      geo_lat: 43.7,
      geo_lng: -79.4,
    })
    expect(created.body.id).not.toBe(id.hall) // a direct POST always creates
    expect(created.body.slug).toBe('town-hall-2')
    expect(created.headers.get('location')).toBe(created.body.rest_url)
    expect(created.body).toMatchObject({
      state: 'Ontario',
      stateprovince: 'Ontario',
      geo_lat: 43.7,
    })
    const vid = created.body.id
    const patched = await t.call('PATCH', `/venues/${vid}`, {
      body: { city: 'Toronto', website: null },
      token: true,
    })
    expect(patched.body).toMatchObject({
      city: 'Toronto',
      website: '',
      venue: 'Town Hall',
      state: 'Ontario',
    })
    const put = await t.call('PUT', `/venues/by-slug/town-hall-2`, {
      body: { zip: 'M5V' },
      token: true,
    })
    expect(put.body).toMatchObject({ zip: 'M5V', city: 'Toronto' })
    expect((await t.call('DELETE', `/venues/${vid}`, { token: true })).body.status).toBe('trash')
    expect((await t.call('DELETE', `/venues/${vid}`, { token: true })).body.code).toBe(
      'venue-is-in-trash',
    )
    expect((await t.get(`/venues/${vid}`)).body.code).toBe('venue-no-longer-available')

    const org = await t.create('/organizers', { organizer: 'Carol', email: 'carol@example.org' })
    const oid = org.body.id
    const post = await t.call('POST', `/organizers/${oid}`, { body: { phone: '555' }, token: true })
    expect(post.body).toMatchObject({ phone: '555', email: 'carol@example.org' })
    expect((await t.call('DELETE', '/organizers/by-slug/carol', { token: true })).body.status).toBe(
      'trash',
    )
    expect((await t.call('DELETE', `/organizers/${oid}`, { token: true })).status).toBe(410)
    expect((await t.get(`/organizers/${oid}`)).status).toBe(403)
    expect(ids(await t.get('/organizers'), 'organizers')).not.toContain(oid)
  })

  it('validates venue and organizer writes', async () => {
    const noName = await t.call('POST', '/venues', { body: { city: 'X' }, token: true })
    expect(noName.status).toBe(400)
    expect(noName.body.data.params).toHaveProperty('venue')
    const badSite = await t.call('POST', '/organizers', {
      body: { organizer: 'X', website: 'nope' },
      token: true,
    })
    expect(badSite.body.data.params).toHaveProperty('website')
    const badMail = await t.call('POST', '/organizers', {
      body: { organizer: 'X', email: 'nope' },
      token: true,
    })
    expect(badMail.body.data.params).toHaveProperty('email')
    const badLat = await t.call('PATCH', `/venues/${id.hall}`, {
      body: { geo_lat: 200 },
      token: true,
    })
    expect(badLat.body.data.params).toHaveProperty('geo_lat')
    expect((await t.call('PATCH', '/venues/999999', { body: {}, token: true })).body.code).toBe(
      'venue-not-found',
    )
  })
})

describe.each(testDatabases())('calendar categories and tags on $name', ({ open }) => {
  let t: CalHarness
  const id: Record<string, number> = {}

  beforeAll(async () => {
    t = await openCal(open)
    id.arts = (await t.create('/categories', { name: 'Arts', description: 'all arts' })).body.id
    id.film = (await t.create('/categories', { name: 'Film', parent: id.arts })).body.id
    id.sport = (await t.create('/categories', { name: 'Sport' })).body.id
    id.unused = (await t.create('/categories', { name: 'Unused' })).body.id
    id.kids = (await t.create('/tags', { name: 'Kids' })).body.id
    id.night = (await t.create('/tags', { name: 'Night' })).body.id
    const ev = (
      title: string,
      categories: (number | undefined)[],
      tags: (number | undefined)[],
      status = 'publish',
    ) =>
      t.create('/events', {
        title,
        start_date: '2026-03-05 10:00:00',
        end_date: '2026-03-05 11:00:00',
        categories,
        tags,
        status,
      })
    id.e1 = (await ev('Cinema', [id.film], [id.night])).body.id
    id.e2 = (await ev('Match', [id.sport], [id.kids, id.night])).body.id
    id.e3 = (await ev('Draft Film', [id.film, id.unused], [], 'draft')).body.id
  })
  afterAll(() => t?.close())

  it('renders terms with urls and published counts', async () => {
    const film = await t.get(`/categories/${id.film}`)
    expect(film.body).toEqual({
      id: id.film,
      name: 'Film',
      slug: 'film',
      taxonomy: 'cal_event_category',
      description: '',
      parent: id.arts,
      count: 1,
      urls: {
        self: `http://cal.test/cal/events/v1/categories/${id.film}`,
        collection: 'http://cal.test/cal/events/v1/categories',
        up: `http://cal.test/cal/events/v1/categories/${id.arts}`,
      },
    })
    const night = await t.get(`/tags/${id.night}`)
    expect(night.body).toMatchObject({ taxonomy: 'cal_event_tag', parent: 0, count: 2 })
    expect(night.body.urls).not.toHaveProperty('up')
    expect((await t.get('/tags/by-slug/kids')).body.id).toBe(id.kids)
    expect((await t.get('/categories/999999')).body.code).toBe('term-not-found')
  })

  it('lists terms: hide_empty by default, search, include/exclude, order, parent, post, slug', async () => {
    expect(ids(await t.get('/categories'), 'categories')).toEqual([id.film, id.sport])
    const all = await t.get('/categories?hide_empty=false')
    expect(ids(all, 'categories')).toEqual([id.arts, id.film, id.sport, id.unused])
    expect(all.headers.get('x-tec-total')).toBe('4')
    expect(ids(await t.get('/categories?hide_empty=false&search=SPO'), 'categories')).toEqual([
      id.sport,
    ])
    expect(
      ids(await t.get(`/categories?hide_empty=0&exclude=${id.arts},${id.film}`), 'categories'),
    ).toEqual([id.sport, id.unused])
    expect(
      ids(
        await t.get(`/categories?hide_empty=0&include=${id.unused},${id.arts}&orderby=include`),
        'categories',
      ),
    ).toEqual([id.unused, id.arts])
    expect(ids(await t.get('/categories?hide_empty=0&order=desc'), 'categories')).toEqual([
      id.unused,
      id.sport,
      id.film,
      id.arts,
    ])
    expect(ids(await t.get('/tags?orderby=count&order=desc'), 'tags')).toEqual([id.night, id.kids])
    expect(ids(await t.get(`/categories?hide_empty=0&parent=${id.arts}`), 'categories')).toEqual([
      id.film,
    ])
    expect(ids(await t.get('/categories?hide_empty=0&parent=0'), 'categories')).toEqual([
      id.arts,
      id.sport,
      id.unused,
    ])
    expect(ids(await t.get(`/tags?post=${id.e2}`), 'tags')).toEqual([id.kids, id.night])
    expect(ids(await t.get(`/tags?event=${id.e1}`), 'tags')).toEqual([id.night])
    expect(ids(await t.get('/categories?hide_empty=0&slug=sport,film'), 'categories')).toEqual([
      id.film,
      id.sport,
    ])
    expect((await t.get('/tags?page=2')).body.code).toBe('term-archive-page-not-found')
    expect((await t.get('/tags?orderby=colour')).status).toBe(400)
  })

  it('refuses a sibling with the same name, allows it under another parent', async () => {
    const dup = await t.call('POST', '/categories', {
      body: { name: 'film', parent: id.arts },
      token: true,
    })
    expect(dup.status).toBe(400)
    expect(dup.body).toMatchObject({ code: 'term_exists', data: { status: 400, term_id: id.film } })
    const elsewhere = await t.create('/categories', { name: 'Film', parent: id.sport })
    expect(elsewhere.body).toMatchObject({ name: 'Film', slug: 'film-2', parent: id.sport })
    expect(elsewhere.headers.get('location')).toBe(elsewhere.body.urls.self)
    expect(
      (await t.call('POST', '/tags', { body: {}, token: true })).body.data.params,
    ).toHaveProperty('name')
  })

  it('updates terms partially and deletes them permanently', async () => {
    const created = await t.create('/tags', { name: 'Temporary', description: 'soon gone' })
    const tid = created.body.id
    const patched = await t.call('PATCH', `/tags/${tid}`, { body: { name: 'Temp' }, token: true })
    expect(patched.body).toMatchObject({ name: 'Temp', description: 'soon gone' })
    await t.call('PATCH', `/events/${id.e1}`, { body: { tags: [id.night, tid] }, token: true })
    const deleted = await t.call('DELETE', `/tags/${tid}`, { token: true })
    expect(deleted.status).toBe(200)
    expect(deleted.body).toMatchObject({ id: tid, name: 'Temp', count: 1, deleted: true })
    expect((await t.call('DELETE', `/tags/${tid}`, { token: true })).body.code).toBe(
      'term-not-found',
    )
    expect((await t.get(`/tags/${tid}`)).status).toBe(404)
    const event = await t.get(`/events/${id.e1}`)
    expect(event.body.tags.map((x: { id: number }) => x.id)).toEqual([id.night])
  })
})
