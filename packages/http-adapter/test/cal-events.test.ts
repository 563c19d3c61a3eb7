import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalHarness, ids, openCal } from './cal-harness.js'

const EVENT_FIELDS = [
  'id',
  'global_id',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'rest_url',
  'title',
  'description',
  'excerpt',
  'slug',
  'image',
  'all_day',
  'start_date',
  'start_date_details',
  'end_date',
  'end_date_details',
  'utc_start_date',
  'utc_start_date_details',
  'utc_end_date',
  'utc_end_date_details',
  'timezone',
  'timezone_abbr',
  'cost',
  'cost_details',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'ticketed',
  'password_protected',
  'categories',
  'tags',
  'venue',
  'organizer',
  // Recurring series (beyond the original v1): present on every event.
  'post_parent',
  'is_recurring',
  'recurrence',
  'occurrence_start_utc',
]
const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

describe.each(testDatabases())('calendar events API on $name', ({ open }) => {
  let t: CalHarness
  const id: Record<string, number> = {}
  const ev: Record<string, number> = {}

  beforeAll(async () => {
    t = await openCal(open)
    id.music = (await t.create('/categories', { name: 'Music' })).body.id
    id.jazz = (await t.create('/categories', { name: 'Jazz', parent: id.music })).body.id
    id.outdoor = (await t.create('/tags', { name: 'Outdoor' })).body.id
    id.free = (await t.create('/tags', { name: 'Free' })).body.id
    id.hall = (
      await t.create('/venues', {
        venue: 'Town Hall',
        city: 'Amsterdam',
        geo_lat: 52.37,
        geo_lng: 4.89,
      })
    ).body.id
    id.remote = (await t.create('/venues', { venue: 'Remote Barn' })).body.id
    id.alice = (
      await t.create('/organizers', { organizer: 'Alice', email: 'alice@example.org' })
    ).body.id
    const make = async (key: string, body: Record<string, unknown>) => {
      ev[key] = (await t.create('/events', body)).body.id
    }
    await make('jazz', {
      title: 'Jazz Night',
      description: 'Smooth jazz by the canal',
      start_date: '2026-03-10 19:00:00',
      end_date: '2026-03-10 22:00:00',
      timezone: 'Europe/Amsterdam',
      venue: id.hall,
      organizer: [id.alice],
      categories: [id.jazz],
      tags: ['Outdoor'],
      cost: '10€',
      featured: true,
      website: 'https://jazz.example.org',
    })
    await make('fair', {
      title: 'Spring Fair',
      start_date: '2026-03-20',
      end_date: '2026-03-21',
      all_day: true,
      tags: [id.free],
      cost: ['0$', '20$', '30$'],
      sticky: true,
    })
    await make('marathon', {
      title: 'Night Marathon',
      start_date: '2026-03-07 22:00:00',
      end_date: '2026-03-08 04:00:00',
      timezone: 'America/New_York',
    })
    await make('secret', {
      title: 'Secret Party',
      description: 'zebra crossing at midnight',
      excerpt: 'zebra',
      start_date: '2026-03-12 20:00:00',
      end_date: '2026-03-12 23:00:00',
      password: 'open-sesame',
    })
    await make('draft', {
      title: 'Draft Meeting',
      start_date: '2026-03-15 10:00:00',
      end_date: '2026-03-15 11:00:00',
      status: 'draft',
    })
    await make('old', {
      title: 'Old Event',
      start_date: '2026-01-01 10:00',
      end_date: '2026-01-01 12:00',
    })
    await make('hidden', {
      title: 'Hidden Event',
      start_date: '2026-03-11 10:00:00',
      end_date: '2026-03-11 11:00:00',
      hide_from_listings: true,
    })
    await make('ongoing', {
      title: 'Ongoing Exhibition',
      start_date: '2026-02-25 09:00:00',
      end_date: '2026-03-05 17:00:00',
    })
    await make('far', {
      title: 'Far Future',
      start_date: '2029-01-01 10:00',
      end_date: '2029-01-01 11:00',
    })
    await make('talk', {
      title: 'Ticketed Talk',
      start_date: '2026-04-01 18:00:00',
      end_date: '2026-04-01 19:00:00',
      ticketed: true,
      post_parent: ev.jazz,
      venue: id.remote,
    })
  })
  afterAll(() => t?.close())

  it('renders relations, cost and terms of an event', async () => {
    const { status, body } = await t.get(`/events/${ev.jazz}`)
    expect(status).toBe(200)
    expect(body).toMatchObject({
      start_date: '2026-03-10 19:00:00',
      utc_start_date: '2026-03-10 18:00:00',
      timezone_abbr: 'CET',
      cost: '10€',
      cost_details: { currency_symbol: '€', currency_position: 'postfix', values: ['10'] },
      featured: true,
      website: 'https://jazz.example.org',
      venue: {
        id: id.hall,
        venue: 'Town Hall',
        city: 'Amsterdam',
        address: '',
        zip: '',
        geo_lat: 52.37,
        rest_url: `http://cal.test/cal/events/v1/venues/${id.hall}`,
      },
      organizer: [{ id: id.alice, organizer: 'Alice', email: 'alice@example.org', phone: '' }],
      categories: [
        {
          id: id.jazz,
          name: 'Jazz',
          taxonomy: 'cal_event_category',
          parent: id.music,
          urls: {
            self: `http://cal.test/cal/events/v1/categories/${id.jazz}`,
            collection: 'http://cal.test/cal/events/v1/categories',
            up: `http://cal.test/cal/events/v1/categories/${id.music}`,
          },
        },
      ],
      tags: [{ id: id.outdoor, name: 'Outdoor', taxonomy: 'cal_event_tag', parent: 0 }],
    })
    const fair = await t.get(`/events/${ev.fair}`)
    expect(fair.body).toMatchObject({
      cost: 'Free – 30$',
      cost_details: { values: ['0', '20', '30'] },
    })
  })

  it('keeps New York wall times across the DST change', async () => {
    const { body } = await t.get(`/events/${ev.marathon}`)
    expect(body).toMatchObject({
      start_date: '2026-03-07 22:00:00',
      end_date: '2026-03-08 04:00:00',
      utc_start_date: '2026-03-08 03:00:00',
      utc_end_date: '2026-03-08 08:00:00',
      timezone: 'America/New_York',
      timezone_abbr: 'EST',
    })
  })

  it('stores all-day events from 00:00:00 to 23:59:59 of the days given', async () => {
    const { body } = await t.get(`/events/${ev.fair}`)
    expect(body).toMatchObject({
      all_day: true,
      start_date: '2026-03-20 00:00:00',
      end_date: '2026-03-21 23:59:59',
      timezone: 'UTC',
    })
  })

  it('lists the default window: overlapping, published, visible, in start order', async () => {
    const res = await t.get('/events')
    expect(res.status).toBe(200)
    expect(ids(res)).toEqual([ev.ongoing, ev.marathon, ev.jazz, ev.secret, ev.fair, ev.talk])
    expect(res.body.total).toBe(6)
    expect(res.body.total_pages).toBe(1)
    expect(res.headers.get('x-cal-total')).toBe('6')
    expect(res.headers.get('x-tec-totalpages')).toBe('1')
    expect(res.body.rest_url).toBe('http://cal.test/cal/events/v1/events')
  })

  it('hides password-protected text in lists and from search', async () => {
    const res = await t.get('/events')
    const secret = res.body.events.find((e: { id: number }) => e.id === ev.secret)
    expect(secret).toMatchObject({ password_protected: true, description: '', excerpt: '' })
    expect(JSON.stringify(res.body)).not.toContain('zebra')
    const search = await t.get('/events?search=zebra')
    expect(search.body.total).toBe(0)
    expect(JSON.stringify(search.body.events)).not.toContain('zebra')
    const privileged = await t.get('/events?search=zebra', true)
    expect(ids(privileged)).toEqual([ev.secret])
    expect(privileged.body.events[0].description).toContain('zebra')
  })

  it('answers single reads of protected, draft and missing events', async () => {
    expect((await t.get(`/events/${ev.secret}`)).body.code).toBe('event-password-protected')
    expect((await t.get(`/events/${ev.secret}?password=wrong`)).status).toBe(403)
    const right = await t.get(`/events/${ev.secret}?password=open-sesame`)
    expect(right.status).toBe(200)
    expect(right.body.description).toBe('zebra crossing at midnight')
    expect((await t.get(`/events/${ev.secret}`, true)).status).toBe(200)
    const draft = await t.get(`/events/${ev.draft}`)
    expect(draft.status).toBe(403)
    expect(draft.body).toMatchObject({ code: 'event-not-accessible', data: { status: 403 } })
    expect((await t.get(`/events/${ev.draft}`, true)).body.status).toBe('draft')
    const missing = await t.get('/events/999999')
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({
      code: 'event-not-found',
      error: 'event-not-found',
      status: 404,
      data: { status: 404 },
    })
    expect((await t.get('/events/by-slug/jazz-night')).body.id).toBe(ev.jazz)
    expect((await t.get('/events/by-slug/no-such-event')).body.code).toBe('event-not-found')
    expect((await t.get(`/events/${ev.hidden}`)).status).toBe(200)
  })

  it('filters by search, categories and tags (ids or slugs, comma or repeated)', async () => {
    expect(ids(await t.get('/events?search=JAZZ canal'))).toEqual([ev.jazz])
    expect(ids(await t.get('/events?search=jazz nothing'))).toEqual([])
    expect(ids(await t.get('/events?categories=jazz'))).toEqual([ev.jazz])
    expect(ids(await t.get(`/events?categories=${id.jazz}`))).toEqual([ev.jazz])
    expect(ids(await t.get('/events?tags=outdoor,free'))).toEqual([ev.jazz, ev.fair])
    expect(ids(await t.get(`/events?tags=outdoor&tags=${id.free}`))).toEqual([ev.jazz, ev.fair])
    const unknown = await t.get('/events?categories=nope')
    expect(unknown.status).toBe(400)
    expect(unknown.body).toMatchObject({
      code: 'rest_invalid_param',
      data: { params: { categories: expect.any(String) } },
    })
    expect((await t.get('/events?tags=99999')).status).toBe(400)
  })

  it('filters by venue, organizer, flags, include and post_parent', async () => {
    expect(ids(await t.get(`/events?venue=${id.hall}`))).toEqual([ev.jazz])
    expect(ids(await t.get(`/events?venue=${id.hall},${id.remote}`))).toEqual([ev.jazz, ev.talk])
    expect(ids(await t.get(`/events?organizer=${id.alice}`))).toEqual([ev.jazz])
    expect(ids(await t.get('/events?featured=true'))).toEqual([ev.jazz])
    expect(ids(await t.get('/events?featured=0'))).not.toContain(ev.jazz)
    expect(ids(await t.get('/events?ticketed=1'))).toEqual([ev.talk])
    expect(ids(await t.get(`/events?include=${ev.old},${ev.jazz},${ev.hidden}`))).toEqual([
      ev.old,
      ev.jazz,
      ev.hidden,
    ])
    expect(ids(await t.get(`/events?include=${ev.old}&featured=true`))).toEqual([])
    expect(ids(await t.get(`/events?post_parent=${ev.jazz}`))).toEqual([ev.talk])
    expect((await t.get('/events?featured=maybe')).status).toBe(400)
  })

  it('filters by geolocation', async () => {
    expect(ids(await t.get('/events?geoloc=true'))).toEqual([ev.jazz])
    expect(ids(await t.get('/events?geoloc_lat=52.36&geoloc_lng=4.9&geoloc_radius=5'))).toEqual([
      ev.jazz,
    ])
    expect(ids(await t.get('/events?geoloc_lat=48.85&geoloc_lng=2.35'))).toEqual([])
    expect(ids(await t.get('/events?geoloc_lat=48.85&geoloc_lng=2.35&geoloc_radius=500'))).toEqual([
      ev.jazz,
    ])
    const half = await t.get('/events?geoloc_lat=52.36')
    expect(half.status).toBe(400)
    expect(half.body.data.params).toHaveProperty('geoloc_lng')
  })

  it('lists hidden events on request, other statuses only with a token, sticky first when asked', async () => {
    expect(ids(await t.get('/events?hide_from_listings=false'))).toContain(ev.hidden)
    const anon = await t.get('/events?status=draft')
    expect(anon.status).toBe(401)
    expect(anon.body.code).toBe('rest_not_logged_in')
    expect(ids(await t.get('/events?status=draft', true))).toEqual([ev.draft])
    expect(ids(await t.get('/events', true))).toContain(ev.draft)
    expect(ids(await t.get('/events?sticky=true'))[0]).toBe(ev.fair)
  })

  it('applies date windows, extra bounds and strict_dates', async () => {
    expect(ids(await t.get('/events?start_date=2026-01-01&end_date=2026-01-31'))).toEqual([ev.old])
    // The window keeps ongoing events (overlap): the exhibition runs through 5 March.
    expect(ids(await t.get('/events?start_date=2026-03-04&end_date=2026-03-04'))).toEqual([
      ev.ongoing,
    ])
    // Any starts_/ends_ bound drops the default window: the far-future event shows.
    expect(ids(await t.get('/events?starts_after=2026-03-12 21:00:00&strict_dates=true'))).toEqual([
      ev.fair,
      ev.talk,
      ev.far,
    ])
    // Without strict_dates a relative bound moves to 23:59:59 of its day (spec, as the
    // original): the secret event on the evening of 12 March is after 21:00 but not after that.
    expect(ids(await t.get('/events?starts_after=2026-03-12 21:00:00'))).toEqual([
      ev.fair,
      ev.talk,
      ev.far,
    ])
    expect(ids(await t.get('/events?starts_after=2026-03-11'))).toEqual([
      ev.secret,
      ev.fair,
      ev.talk,
      ev.far,
    ])
    expect(ids(await t.get('/events?ends_before=2026-03-06'))).toEqual([ev.old, ev.ongoing])
    expect(ids(await t.get('/events?starts_before=2026-01-02'))).toEqual([ev.old])
    expect(ids(await t.get('/events?ends_after=2028-12-31'))).toEqual([ev.far])
    expect((await t.get('/events?start_date=yesterday-ish')).status).toBe(400)
  })

  it('pages with links that keep the filters', async () => {
    const first = await t.get('/events?ticketed=false&per_page=2')
    expect(first.body.total).toBe(5)
    expect(first.body.total_pages).toBe(3)
    expect(first.body.previous_rest_url).toBeUndefined()
    const next = new URL(first.body.next_rest_url)
    expect(Object.fromEntries(next.searchParams)).toEqual({
      ticketed: 'false',
      per_page: '2',
      page: '2',
    })
    const second = await t.call(
      'GET',
      `${next.pathname.replace('/cal/events/v1', '')}${next.search}`,
    )
    expect(ids(second)).toEqual([ev.jazz, ev.secret])
    expect(new URL(second.body.previous_rest_url).searchParams.get('page')).toBeNull()
    expect(new URL(second.body.next_rest_url).searchParams.get('page')).toBe('3')
    const past = await t.get('/events?ticketed=false&per_page=2&page=4')
    expect(past.status).toBe(404)
    expect(past.body.code).toBe('event-archive-page-not-found')
    const empty = await t.get('/events?search=nothing-matches-this')
    expect(empty.status).toBe(200)
    expect(empty.body).toMatchObject({ events: [], total: 0, total_pages: 0 })
    expect(empty.headers.get('x-tec-total')).toBe('0')
    expect((await t.get('/events?per_page=0')).status).toBe(400)
    expect((await t.get('/events?page=0')).status).toBe(400)
    expect((await t.get('/events?page=abc')).body.data.params).toHaveProperty('page')
    const clamped = await t.get('/events?per_page=500')
    expect(clamped.status).toBe(200)
    expect(clamped.body.events).toHaveLength(6)
  })

  it('creates with 201, Location = rest_url, and renders every field', async () => {
    const res = await t.create('/events', {
      title: 'Café Concert',
      start_date: '2026-05-01 20:00:00',
      end_date: '2026-05-01 21:30:00',
      timezone: 'Europe/Amsterdam',
      image: 'https://img.example.org/a.png',
    })
    expect(res.headers.get('location')).toBe(res.body.rest_url)
    expect(Object.keys(res.body).sort()).toEqual([...EVENT_FIELDS].sort())
    expect(res.body).toMatchObject({
      rest_url: `http://cal.test/cal/events/v1/events/${res.body.id}`,
      url: 'http://cal.test/event/cafe-concert/',
      global_id: `cal.test?id=${res.body.id}`,
      slug: 'cafe-concert',
      image: { url: 'https://img.example.org/a.png' },
      start_date: '2026-05-01 20:00:00',
      utc_start_date: '2026-05-01 18:00:00',
      end_date_details: {
        year: '2026',
        month: '05',
        day: '01',
        hour: '21',
        minutes: '30',
        seconds: '00',
      },
      timezone: 'Europe/Amsterdam',
      timezone_abbr: 'CEST',
      venue: [],
      organizer: [],
      website: '',
      cost: '',
      password_protected: false,
    })
    for (const key of ['date', 'date_utc', 'modified', 'modified_utc']) {
      expect(res.body[key]).toMatch(DATE_TIME)
    }
    expect(res.body).not.toHaveProperty('password')
  })

  it('updates partially with POST, PUT and PATCH; null clears', async () => {
    const created = await t.create('/events', {
      title: 'Update Me',
      description: 'keep me',
      start_date: '2026-06-01 10:00:00',
      end_date: '2026-06-01 12:00:00',
      website: 'https://a.example.org',
      featured: true,
      organizer: [id.alice],
      status: 'draft',
    })
    const eid = created.body.id
    const patched = await t.call('PATCH', `/events/${eid}`, {
      body: { title: 'Updated' },
      token: true,
    })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({
      title: 'Updated',
      description: 'keep me',
      featured: true,
      status: 'draft',
      website: 'https://a.example.org',
      organizer: [{ id: id.alice }],
    })
    const put = await t.call('PUT', `/events/${eid}`, { body: { website: null }, token: true })
    expect(put.body).toMatchObject({ website: '', title: 'Updated', featured: true })
    const post = await t.call('POST', `/events/${eid}`, {
      body: { timezone: 'America/New_York' },
      token: true,
    })
    expect(post.body).toMatchObject({
      timezone: 'America/New_York',
      start_date: '2026-06-01 10:00:00',
      utc_start_date: '2026-06-01 14:00:00',
      timezone_abbr: 'EDT',
    })
    const bySlug = await t.call('PATCH', '/events/by-slug/update-me', {
      body: { excerpt: 'short' },
      token: true,
    })
    expect(bySlug.body).toMatchObject({ id: eid, excerpt: 'short' })
    const bad = await t.call('PATCH', `/events/${eid}`, {
      body: { end_date: '2026-05-01 10:00:00' },
      token: true,
    })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe('rest_invalid_param')
    expect((await t.call('PATCH', '/events/999999', { body: {}, token: true })).body.code).toBe(
      'event-not-found',
    )
  })

  it('validates writes with rest_invalid_param naming each field', async () => {
    const empty = await t.call('POST', '/events', { token: true })
    expect(empty.status).toBe(400)
    expect(Object.keys(empty.body.data.params).sort()).toEqual(['end_date', 'start_date', 'title'])
    const cases: [Record<string, unknown>, string][] = [
      [{ end_date: '2026-03-01 09:00:00' }, 'end_date'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ image: 'ftp://x.example.org/a.png' }, 'image'],
      [{ website: 'not a url' }, 'website'],
      [{ venue: 999999 }, 'venue'],
      [{ organizer: [999999] }, 'organizer'],
      [{ categories: [999999] }, 'categories'],
      [{ tags: [999999] }, 'tags'],
      [{ start_date: 'soon' }, 'start_date'],
      [{ featured: 'yes please' }, 'featured'],
    ]
    for (const [patch, field] of cases) {
      const res = await t.call('POST', '/events', {
        body: {
          title: 'Bad',
          start_date: '2026-03-01 10:00:00',
          end_date: '2026-03-01 11:00:00',
          ...patch,
        },
        token: true,
      })
      expect(res.status, field).toBe(400)
      expect(res.body.code, field).toBe('rest_invalid_param')
      expect(res.body.data.params, field).toHaveProperty(field)
    }
    for (const timezone of ['UTC+5:30', 'UTC-3', 'UTC']) {
      const ok = await t.call('POST', '/events', {
        body: {
          title: 'Offset',
          start_date: '2026-03-01 10:00:00',
          end_date: '2026-03-01 11:00:00',
          timezone,
          website: '',
        },
        token: true,
      })
      expect(ok.status, timezone).toBe(201)
    }
  })

  it('takes venues and organizers as ids or objects, terms as ids or names', async () => {
    const res = await t.create('/events', {
      title: 'Relations',
      start_date: '2026-07-01 10:00:00',
      end_date: '2026-07-01 11:00:00',
      venue: { venue: 'TOWN HALL' },
      organizer: [id.alice, { organizer: 'Bob Builder', phone: '123' }],
      categories: ['Brand New Category', id.music],
      tags: ['outdoor'],
    })
    expect(res.body.venue.id).toBe(id.hall)
    expect(res.body.organizer.map((o: { organizer: string }) => o.organizer)).toEqual([
      'Alice',
      'Bob Builder',
    ])
    const names = res.body.categories.map((c: { name: string }) => c.name).sort()
    expect(names).toEqual(['Brand New Category', 'Music'])
    expect(res.body.tags.map((c: { id: number }) => c.id)).toEqual([id.outdoor])
    const newVenue = await t.create('/events', {
      title: 'New Place',
      start_date: '2026-07-02 10:00:00',
      end_date: '2026-07-02 11:00:00',
      venue: { venue: 'Brand New Hall', city: 'Utrecht' },
    })
    expect(newVenue.body.venue).toMatchObject({ venue: 'Brand New Hall', city: 'Utrecht' })
    expect(newVenue.body.venue.id).not.toBe(id.hall)
    const reuse = await t.create('/events', {
      title: 'Same Organizer',
      start_date: '2026-07-03 10:00:00',
      end_date: '2026-07-03 11:00:00',
      organizer: { organizer: 'ALICE' },
    })
    expect(reuse.body.organizer.map((o: { id: number }) => o.id)).toEqual([id.alice])
  })

  it('trashes, then answers 410 on delete and 403 on read, and lists it no more', async () => {
    const created = await t.create('/events', {
      title: 'Doomed',
      start_date: '2026-03-02 10:00:00',
      end_date: '2026-03-02 11:00:00',
    })
    const eid = created.body.id
    const del = await t.call('DELETE', `/events/${eid}`, { token: true })
    expect(del.status).toBe(200)
    expect(del.body).toMatchObject({ id: eid, status: 'trash' })
    const again = await t.call('DELETE', `/events/${eid}`, { token: true })
    expect(again.status).toBe(410)
    expect(again.body.code).toBe('event-is-in-trash')
    const read = await t.get(`/events/${eid}`)
    expect(read.status).toBe(403)
    expect(read.body.code).toBe('event-no-longer-available')
    expect(ids(await t.get(`/events?include=${eid}`))).toEqual([])
    expect(ids(await t.get('/events', true))).not.toContain(eid)
    expect((await t.call('DELETE', '/events/999999', { token: true })).status).toBe(404)
    const slugDel = await t.create('/events', {
      title: 'Doomed By Slug',
      start_date: '2026-03-02 10:00:00',
      end_date: '2026-03-02 11:00:00',
    })
    const bySlug = await t.call('DELETE', '/events/by-slug/doomed-by-slug', { token: true })
    expect(bySlug.body).toMatchObject({ id: slugDel.body.id, status: 'trash' })
  })
})
