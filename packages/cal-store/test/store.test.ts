import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  CalInTrashError,
  CalNotFoundError,
  type CalStore,
  CalTermExistsError,
  CalUnknownReferenceError,
  CalValidationError,
  createCalStore,
  type EventInput,
  formatLocalDateTime,
  seedDemoCalendar,
} from '../src/index.js'
import { migrations } from '../src/migrations.js'
import { migrateCal, prng } from '../src/testing.js'

const T = (iso: string) => new Date(iso)

describe.each(testDatabases())('cal store on $name', ({ open }) => {
  let database: Database
  let store: CalStore
  let clock = T('2026-03-01T12:00:00Z')

  beforeAll(async () => {
    database = await open(migrateCal)
    store = createCalStore(database, { now: () => clock })
    await store.migrate()
    await store.migrate()
  })
  afterAll(async () => {
    await database?.close()
  })
  beforeEach(async () => {
    clock = T('2026-03-01T12:00:00Z')
    await sql`truncate cal_event_term, cal_event_organizer, cal_event, cal_term, cal_venue, cal_organizer restart identity cascade`.execute(
      database.db,
    )
  })

  it('creates, reads, updates and trashes venues and organizers', async () => {
    expect(await store.isEmpty()).toBe(true)
    const v = await store.venues.create({
      name: 'Town Hall',
      city: 'Delft',
      geo_lat: 52,
      geo_lng: 4.3,
    })
    expect(v).toMatchObject({
      name: 'Town Hall',
      slug: 'town-hall',
      city: 'Delft',
      address: null,
      status: 'publish',
      show_map: false,
    })
    expect(v.created.toISOString()).toBe('2026-03-01T12:00:00.000Z')
    expect(await store.isEmpty()).toBe(false)
    expect(await store.venues.get(v.id)).toEqual(v)
    expect(await store.venues.getBySlug('town-hall')).toEqual(v)
    clock = T('2026-03-02T00:00:00Z')
    const u = await store.venues.update(v.id, { city: null, zip: '2611', show_map: true })
    expect(u).toMatchObject({
      name: 'Town Hall',
      city: null,
      zip: '2611',
      show_map: true,
      geo_lat: 52,
    })
    expect(u.modified.toISOString()).toBe('2026-03-02T00:00:00.000Z')
    expect(u.created.toISOString()).toBe('2026-03-01T12:00:00.000Z')
    const t = await store.venues.trash(v.id)
    expect(t.status).toBe('trash')
    await expect(store.venues.trash(v.id)).rejects.toBeInstanceOf(CalInTrashError)
    await expect(store.venues.trash(999)).rejects.toBeInstanceOf(CalNotFoundError)
    await expect(store.venues.update(999, { name: 'x' })).rejects.toBeInstanceOf(CalNotFoundError)
    expect((await store.venues.list()).total).toBe(0)
    expect((await store.venues.list({ status: ['trash'] })).items.map((x) => x.id)).toEqual([v.id])
    await expect(store.venues.create({ name: ' ' })).rejects.toBeInstanceOf(CalValidationError)
    await expect(store.venues.create({ name: 'x', geo_lat: 91 })).rejects.toBeInstanceOf(
      CalValidationError,
    )

    const o = await store.organizers.create({ name: 'Ann', email: 'ann@example.org' })
    expect(o).toMatchObject({ name: 'Ann', slug: 'ann', email: 'ann@example.org', phone: null })
    const o2 = await store.organizers.update(o.id, { email: null, phone: '123', slug: 'ann-b' })
    expect(o2).toMatchObject({ email: null, phone: '123', slug: 'ann-b', name: 'Ann' })
    expect((await store.organizers.trash(o.id)).status).toBe('trash')
    expect(await store.organizers.get(12345)).toBeUndefined()
    expect(await store.organizers.getMany([o.id, 777, o.id])).toHaveLength(2)
  })

  it('creates events with relations, inline venue/organizers/terms, and reads them back', async () => {
    const venue = await store.venues.create({ name: 'Paradiso' })
    const org = await store.organizers.create({ name: 'Ann' })
    const cat = await store.categories.create({ name: 'Music' })
    const e = await store.events.create({
      title: 'Gig',
      start: T('2026-04-01T18:00:00Z'),
      end: T('2026-04-01T20:00:00Z'),
      timezone: 'Europe/Amsterdam',
      venue: venue.id,
      organizers: [{ name: 'bob' }, org.id],
      categories: [cat.id, 'Rock'],
      tags: ['Loud', 'loud'],
      cost: ['10$', '20$'],
      website: 'https://example.org',
    })
    expect(e).toMatchObject({
      title: 'Gig',
      slug: 'gig',
      timezone: 'Europe/Amsterdam',
      venue_id: venue.id,
      cost: ['10$', '20$'],
      status: 'publish',
      password_protected: false,
      post_parent: null,
      all_day: false,
    })
    expect(e.start.toISOString()).toBe('2026-04-01T18:00:00.000Z')
    expect(e.organizer_ids).toHaveLength(2)
    expect(e.organizer_ids[1]).toBe(org.id)
    const bob = await store.organizers.get(e.organizer_ids[0] as number)
    expect(bob?.name).toBe('bob')
    expect(e.category_ids).toHaveLength(2)
    expect(e.category_ids[0]).toBe(cat.id)
    expect(e.tag_ids).toHaveLength(1)
    const rock = await store.categories.getBySlug('rock')
    expect(rock?.count).toBe(1)
    // Inline venue object reuses an existing venue by name, case-insensitively.
    const e2 = await store.events.create({
      title: 'Gig',
      start: T('2026-04-02T18:00:00Z'),
      end: T('2026-04-02T20:00:00Z'),
      venue: { name: 'PARADISO' },
      organizers: [{ name: 'BOB' }],
      cost: '5',
    })
    expect(e2.slug).toBe('gig-2')
    expect(e2.venue_id).toBe(venue.id)
    expect(e2.organizer_ids).toEqual(e.organizer_ids.slice(0, 1))
    expect(e2.cost).toBe('5')
    expect(e2.timezone).toBe('UTC')
    expect(await store.events.getBySlug('gig-2')).toEqual(e2)
    expect((await store.events.getMany([e2.id, e.id])).map((x) => x.id)).toEqual([e2.id, e.id])

    await expect(
      store.events.create({
        title: 'x',
        start: T('2026-01-02T00:00:00Z'),
        end: T('2026-01-01T00:00:00Z'),
      }),
    ).rejects.toBeInstanceOf(CalValidationError)
    await expect(
      store.events.create({ title: 'x', start: e.start, end: e.end, timezone: 'Mars/Olympus' }),
    ).rejects.toMatchObject({ field: 'timezone' })
    for (const [field, input] of [
      ['venue', { venue: 999 }],
      ['organizer', { organizers: [999] }],
      ['categories', { categories: [999] }],
      ['tags', { tags: [cat.id] }],
      ['post_parent', { post_parent: 999 }],
    ] as [string, Partial<EventInput>][]) {
      const err = await store.events
        .create({ title: 'x', start: e.start, end: e.end, ...input })
        .catch((x: unknown) => x)
      expect(err).toBeInstanceOf(CalUnknownReferenceError)
      expect((err as CalUnknownReferenceError).field).toBe(field)
    }
    // A failed write leaves nothing behind (no half-created event).
    expect((await store.events.list({ include_hidden: true })).total).toBe(2)
  })

  it('updates events partially; null clears; relation lists replace', async () => {
    const cat = await store.categories.create({ name: 'A' })
    const tag = await store.tags.create({ name: 'T' })
    const venue = await store.venues.create({ name: 'V' })
    const e = await store.events.create({
      title: 'Party',
      description: 'desc',
      start: T('2026-05-01T18:00:00Z'),
      end: T('2026-05-01T20:00:00Z'),
      venue: venue.id,
      categories: [cat.id],
      tags: [tag.id],
      featured: true,
      cost: '10',
      password: 'pw',
    })
    clock = T('2026-03-05T00:00:00Z')
    const u = await store.events.update(e.id, {
      title: 'Party!',
      cost: null,
      venue: null,
      tags: [],
    })
    expect(u).toMatchObject({
      title: 'Party!',
      slug: 'party',
      description: 'desc',
      cost: null,
      venue_id: null,
      featured: true,
      category_ids: [cat.id],
      tag_ids: [],
      password_protected: true,
    })
    expect(u.modified.toISOString()).toBe('2026-03-05T00:00:00.000Z')
    expect(u.start).toEqual(e.start)
    const u2 = await store.events.update(e.id, {
      end: T('2026-05-02T00:00:00Z'),
      password: null,
      slug: 'new party',
    })
    expect(u2.end.toISOString()).toBe('2026-05-02T00:00:00.000Z')
    expect(u2.password_protected).toBe(false)
    expect(u2.slug).toBe('new-party')
    await expect(
      store.events.update(e.id, { end: T('2026-01-01T00:00:00Z') }),
    ).rejects.toBeInstanceOf(CalValidationError)
    await expect(store.events.update(e.id, { post_parent: e.id })).rejects.toBeInstanceOf(
      CalValidationError,
    )
    await expect(store.events.update(e.id, { categories: [9999] })).rejects.toBeInstanceOf(
      CalUnknownReferenceError,
    )
    // The failed update changed nothing.
    expect((await store.events.get(e.id))?.category_ids).toEqual([cat.id])
    await expect(store.events.update(4242, { title: 'x' })).rejects.toBeInstanceOf(CalNotFoundError)
    const trashed = await store.events.trash(e.id)
    expect(trashed.status).toBe('trash')
    await expect(store.events.trash(e.id)).rejects.toBeInstanceOf(CalInTrashError)
    await expect(store.events.trash(4242)).rejects.toBeInstanceOf(CalNotFoundError)
    expect((await store.events.get(e.id))?.status).toBe('trash')
    expect((await store.events.list({})).total).toBe(0)
  })

  it('searches case-insensitively beyond ASCII, with LIKE characters taken literally', async () => {
    const mk = (title: string, description = '') =>
      store.events.create({
        title,
        description,
        start: T('2026-05-01T18:00:00Z'),
        end: T('2026-05-01T20:00:00Z'),
      })
    const cafe = await mk('CAFÉ Night', 'Über 50% off')
    await mk('Cafe night')
    const titles = async (search: string) =>
      (await store.events.list({ search })).items.map((e) => e.title)
    expect(await titles('café')).toEqual(['CAFÉ Night'])
    expect(await titles('night')).toEqual(['CAFÉ Night', 'Cafe night'])
    expect(await titles('über 50%')).toEqual(['CAFÉ Night'])
    expect(await titles('5_%')).toEqual([])
    expect(await titles('night über')).toEqual(['CAFÉ Night'])
    // The search text follows updates.
    await store.events.update(cafe.id, { title: 'Tea', description: '' })
    expect(await titles('café')).toEqual([])
  })

  it('hashes event passwords and verifies them', async () => {
    const e = await store.events.create({
      title: 'Secret',
      start: T('2026-05-01T18:00:00Z'),
      end: T('2026-05-01T20:00:00Z'),
      password: 'open sesame',
    })
    expect(e.password_protected).toBe(true)
    const { rows } = await sql<{
      password_hash: string
    }>`select password_hash from cal_event`.execute(database.db)
    expect(rows[0]?.password_hash).toMatch(/^scrypt\$/)
    expect(rows[0]?.password_hash).not.toContain('open sesame')
    expect(await store.events.verifyPassword(e.id, 'open sesame')).toBe(true)
    expect(await store.events.verifyPassword(e.id, 'open')).toBe(false)
    expect(await store.events.verifyPassword(9999, 'open sesame')).toBe(false)
    const plain = await store.events.create({ title: 'P', start: e.start, end: e.end })
    expect(await store.events.verifyPassword(plain.id, 'anything')).toBe(true)
  })

  it('stores time zones right across a DST change and widens all-day events', async () => {
    // New York: EST (UTC-5) until 2026-03-08 02:00, then EDT (UTC-4).
    const before = await store.events.create({
      title: 'Before',
      start: T('2026-03-07T19:00:00-05:00'),
      end: T('2026-03-07T21:00:00-05:00'),
      timezone: 'America/New_York',
    })
    const after = await store.events.create({
      title: 'After',
      start: T('2026-03-09T19:00:00-04:00'),
      end: T('2026-03-09T21:00:00-04:00'),
      timezone: 'America/New_York',
    })
    expect(before.start.toISOString()).toBe('2026-03-08T00:00:00.000Z')
    expect(after.start.toISOString()).toBe('2026-03-09T23:00:00.000Z')
    expect(formatLocalDateTime(before.start, before.timezone)).toBe('2026-03-07 19:00:00')
    expect(formatLocalDateTime(after.start, after.timezone)).toBe('2026-03-09 19:00:00')
    const allDay = await store.events.create({
      title: 'Weekend',
      start: T('2026-03-07T15:00:00Z'),
      end: T('2026-03-08T15:00:00Z'),
      timezone: 'America/New_York',
      all_day: true,
    })
    expect(allDay.start.toISOString()).toBe('2026-03-07T05:00:00.000Z')
    expect(allDay.end.toISOString()).toBe('2026-03-09T03:59:59.000Z')
    expect(formatLocalDateTime(allDay.end, 'America/New_York')).toBe('2026-03-08 23:59:59')
    const fixed = await store.events.create({
      title: 'Fixed',
      start: T('2026-03-07T15:00:00Z'),
      end: T('2026-03-07T16:00:00Z'),
      timezone: 'UTC-3:30',
      all_day: true,
    })
    expect(fixed.start.toISOString()).toBe('2026-03-07T03:30:00.000Z')
    // Turning all_day on later widens with the stored zone.
    const widened = await store.events.update(before.id, { all_day: true })
    expect(widened.start.toISOString()).toBe('2026-03-07T05:00:00.000Z')
    expect(widened.end.toISOString()).toBe('2026-03-08T04:59:59.000Z')
  })

  it('generates and suffixes slugs per kind, accents folded', async () => {
    const mk = (title: string, slug?: string) =>
      store.events.create({
        title,
        slug,
        start: T('2026-05-01T18:00:00Z'),
        end: T('2026-05-01T20:00:00Z'),
      })
    expect((await mk('Crème Brûlée Night')).slug).toBe('creme-brulee-night')
    expect((await mk('Creme brulee night')).slug).toBe('creme-brulee-night-2')
    expect((await mk('CRÈME BRÛLÉE NIGHT!')).slug).toBe('creme-brulee-night-3')
    expect((await mk('Other', 'creme-brulee-night')).slug).toBe('creme-brulee-night-4')
    expect((await mk('Given', 'My Slug')).slug).toBe('my-slug')
    expect((await mk('!!!')).slug).toBe('event')
    // Per kind: a venue may share an event's slug.
    expect((await store.venues.create({ name: 'Crème Brûlée Night' })).slug).toBe(
      'creme-brulee-night',
    )
    // Terms: per taxonomy.
    expect((await store.categories.create({ name: 'Crème' })).slug).toBe('creme')
    expect((await store.tags.create({ name: 'Crème' })).slug).toBe('creme')
  })

  it('bulk-creates events with unique slugs, relations by id and checked references', async () => {
    const venue = await store.venues.create({ name: 'V' })
    const org = await store.organizers.create({ name: 'O' })
    const cat = await store.categories.create({ name: 'C' })
    const tag = await store.tags.create({ name: 'T' })
    const at = { start: T('2026-05-01T18:00:00Z'), end: T('2026-05-01T20:00:00Z') }
    await store.events.create({ title: 'Party', ...at })
    await store.events.create({ title: 'Party', slug: 'party-3', ...at })
    await store.events.create({ title: 'Party 2', ...at }) // slug party-2
    expect(await store.events.createMany([])).toEqual([])
    const ids = await store.events.createMany([
      {
        title: 'Party',
        ...at,
        venue: venue.id,
        organizers: [org.id],
        categories: [cat.id],
        tags: [tag.id],
      },
      { title: 'PARTY!', ...at, password: 'pw', cost: ['1', '2'] },
      { title: 'Other', slug: 'party', ...at, all_day: true, timezone: 'America/New_York' },
      { title: 'Fresh', ...at, status: 'draft' },
    ])
    const events = await store.events.getMany(ids)
    expect(events.map((e) => e.slug)).toEqual(['party-4', 'party-5', 'party-6', 'fresh'])
    expect(events[0]).toMatchObject({
      venue_id: venue.id,
      organizer_ids: [org.id],
      category_ids: [cat.id],
      tag_ids: [tag.id],
    })
    expect(events[1]).toMatchObject({ password_protected: true, cost: ['1', '2'] })
    expect(await store.events.verifyPassword(ids[1] as number, 'pw')).toBe(true)
    expect(events[2]?.start.toISOString()).toBe('2026-05-01T04:00:00.000Z')
    expect(events[3]?.status).toBe('draft')
    expect((await store.categories.get(cat.id))?.count).toBe(1)
    const bad = (input: Record<string, unknown>) =>
      store.events.createMany([
        { title: 'ok', ...at },
        { title: 'x', ...at, ...input },
      ])
    await expect(bad({ venue: 999 })).rejects.toMatchObject({ field: 'venue', value: 999 })
    await expect(bad({ tags: [cat.id] })).rejects.toMatchObject({ field: 'tags' })
    await expect(bad({ post_parent: 999 })).rejects.toMatchObject({ field: 'post_parent' })
    await expect(bad({ venue: { name: 'inline' } })).rejects.toBeInstanceOf(CalValidationError)
    await expect(bad({ categories: ['by name'] })).rejects.toBeInstanceOf(CalValidationError)
    await expect(bad({ end: T('2026-01-01T00:00:00Z') })).rejects.toBeInstanceOf(CalValidationError)
    await expect(bad({ title: '' })).rejects.toMatchObject({ field: 'title' })
    // Nothing of a failed batch is stored.
    expect((await store.events.list({ status: ['publish', 'draft'], limit: 50 })).total).toBe(7)
  })

  it('creates distinct slugs for concurrent same-title creates', async () => {
    const input = {
      title: 'Same Title',
      start: T('2026-05-01T18:00:00Z'),
      end: T('2026-05-01T20:00:00Z'),
    }
    const created = await Promise.all(Array.from({ length: 8 }, () => store.events.create(input)))
    // Concurrent updates of events sharing terms queue on the term rows; none deadlocks.
    const shared = await Promise.all(['p', 'q', 'r'].map((name) => store.tags.create({ name })))
    const ids = shared.map((t) => t.id)
    await Promise.all(
      created.map((e, i) =>
        store.events.update(e.id, { tags: i % 2 ? ids : [...ids].reverse(), status: 'publish' }),
      ),
    )
    expect((await store.tags.getMany(ids)).map((t) => t.count)).toEqual([8, 8, 8])
    await Promise.all(created.map((e) => store.events.trash(e.id)))
    expect((await store.tags.getMany(ids)).map((t) => t.count)).toEqual([0, 0, 0])
    const slugs = created.map((e) => e.slug).sort()
    expect(new Set(slugs).size).toBe(8)
    expect(slugs).toContain('same-title')
    expect(slugs).toContain('same-title-8')
    const venues = await Promise.all(
      Array.from({ length: 6 }, () => store.venues.create({ name: 'Hall' })),
    )
    expect(new Set(venues.map((v) => v.slug)).size).toBe(6)
    const tags = await Promise.all(
      Array.from({ length: 6 }, (_, i) => store.tags.create({ name: `Tag ${i}`, slug: 'same' })),
    )
    expect(new Set(tags.map((t) => t.slug)).size).toBe(6)
  })

  it('enforces the term sibling rule and keeps term trees', async () => {
    const music = await store.categories.create({ name: 'Music' })
    const err = await store.categories.create({ name: 'music' }).catch((x: unknown) => x)
    expect(err).toBeInstanceOf(CalTermExistsError)
    expect((err as CalTermExistsError).termId).toBe(music.id)
    const jazz = await store.categories.create({ name: 'Jazz', parent: music.id })
    expect(jazz.parent).toBe(music.id)
    const other = await store.categories.create({ name: 'Other' })
    const jazz2 = await store.categories.create({ name: 'Jazz', parent: other.id })
    expect(jazz2.slug).toBe('jazz-2')
    await expect(store.categories.update(jazz2.id, { parent: music.id })).rejects.toMatchObject({
      termId: jazz.id,
    })
    await expect(store.categories.update(music.id, { parent: jazz.id })).rejects.toBeInstanceOf(
      CalValidationError,
    )
    await expect(store.categories.create({ name: 'x', parent: 999 })).rejects.toBeInstanceOf(
      CalUnknownReferenceError,
    )
    await expect(store.tags.create({ name: 'x', parent: music.id })).rejects.toBeInstanceOf(
      CalValidationError,
    )
    // Tags and categories are separate taxonomies: the same name is fine.
    expect((await store.tags.create({ name: 'Music' })).taxonomy).toBe('cal_event_tag')
    const renamed = await store.categories.update(jazz.id, {
      name: 'Jazz & Blues',
      description: 'd',
    })
    expect(renamed).toMatchObject({
      name: 'Jazz & Blues',
      slug: 'jazz',
      description: 'd',
      parent: music.id,
    })
    expect(await store.tags.get(music.id)).toBeUndefined()
    // Concurrent creates of the same sibling name: exactly one wins.
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => store.tags.create({ name: 'Race' })),
    )
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    for (const r of results) {
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(CalTermExistsError)
    }
  })

  it('deletes terms permanently, off their events, children moved up', async () => {
    const music = await store.categories.create({ name: 'Music' })
    const jazz = await store.categories.create({ name: 'Jazz', parent: music.id })
    const e = await store.events.create({
      title: 'E',
      start: T('2026-05-01T18:00:00Z'),
      end: T('2026-05-01T20:00:00Z'),
      categories: [music.id, jazz.id],
    })
    const deleted = await store.categories.delete(music.id)
    expect(deleted).toMatchObject({ id: music.id, name: 'Music', count: 1 })
    expect(await store.categories.get(music.id)).toBeUndefined()
    await expect(store.categories.delete(music.id)).rejects.toBeInstanceOf(CalNotFoundError)
    expect((await store.events.get(e.id))?.category_ids).toEqual([jazz.id])
    expect((await store.categories.get(jazz.id))?.parent).toBe(0)
  })

  it('keeps stored term counts and term_ids equal to a recount through every kind of write', async () => {
    const rnd = prng(99)
    const cats = await Promise.all(
      ['A', 'B', 'C', 'D'].map((name) => store.categories.create({ name })),
    )
    const tags = await Promise.all(['x', 'y', 'z'].map((name) => store.tags.create({ name })))
    const statuses = ['publish', 'draft', 'trash', 'private'] as const
    const events: number[] = []
    const recount = async () => {
      const { rows } = await sql<{ id: number; stored: number; actual: number }>`
        select t.id, t.count as stored, (select count(*) from cal_event_term et
          join cal_event e on e.id = et.event_id
          where et.term_id = t.id and e.status = 'publish')::int as actual
        from cal_term t order by t.id`.execute(database.db)
      return rows
    }
    /** Events whose mirrored term_ids differ from their cal_event_term rows. */
    const mirrorDrift = async () => {
      const { rows } = await sql<{ id: number }>`
        select e.id from cal_event e
        where e.term_ids is distinct from coalesce((select array_agg(term_id order by term_id)
          from cal_event_term et where et.event_id = e.id), '{}')`.execute(database.db)
      return rows.map((r) => r.id)
    }
    for (let i = 0; i < 60; i++) {
      const op = rnd.int(0, 5)
      const someCats = rnd.some(cats, 0.4).map((c) => c.id)
      const someTags = rnd.some(tags, 0.4).map((t) => t.id)
      if (op <= 1 || events.length === 0) {
        const e = await store.events.create({
          title: `E${i}`,
          start: T('2026-05-01T18:00:00Z'),
          end: T('2026-05-01T20:00:00Z'),
          status: rnd.pick(statuses),
          categories: someCats,
          tags: someTags,
        })
        events.push(e.id)
      } else if (op === 2) {
        await store.events.update(rnd.pick(events), { status: rnd.pick(statuses) })
      } else if (op === 3) {
        await store.events.update(rnd.pick(events), {
          categories: someCats,
          status: rnd.chance(0.5) ? rnd.pick(statuses) : undefined,
        })
      } else if (op === 4) {
        await store.events.trash(rnd.pick(events)).catch(() => undefined)
      } else {
        await store.events.createMany([
          {
            title: 'bulk',
            start: T('2026-05-01T18:00:00Z'),
            end: T('2026-05-01T20:00:00Z'),
            categories: someCats,
            tags: someTags,
          },
          {
            title: 'bulk',
            start: T('2026-05-01T18:00:00Z'),
            end: T('2026-05-01T20:00:00Z'),
            categories: someCats,
            status: 'draft',
          },
        ])
      }
    }
    for (const r of await recount()) expect(r.stored, `term ${r.id}`).toBe(r.actual)
    expect((await recount()).some((r) => r.actual > 0)).toBe(true)
    expect(await mirrorDrift()).toEqual([])
    const { rows: mirrored } = await sql<{ n: number }>`
      select count(*)::int as n from cal_event where cardinality(term_ids) > 0`.execute(database.db)
    expect(mirrored[0]?.n).toBeGreaterThan(0)
    // Deleting events outright (not something the store does, but a script might).
    await sql`delete from cal_event where id in (select id from cal_event order by id limit 10)`.execute(
      database.db,
    )
    await store.categories.delete(cats[0]?.id as number)
    for (const r of await recount()) expect(r.stored, `term ${r.id}`).toBe(r.actual)
    expect(await mirrorDrift()).toEqual([])
    const listed = await store.categories.list({ hide_empty: false })
    for (const term of listed.items) {
      const r = (await recount()).find((x) => x.id === term.id)
      expect(term.count).toBe(r?.actual)
    }
  })

  it('seeds a demo calendar', async () => {
    await Promise.all([
      seedDemoCalendar(store, { now: T('2026-03-01T12:00:00Z') }),
      seedDemoCalendar(store, { now: T('2026-03-01T12:00:00Z') }),
    ])
    await seedDemoCalendar(store, { now: T('2026-03-01T12:00:00Z') })
    const events = await store.events.list({
      window: { start: T('2026-03-01T00:00:00Z') },
      limit: 50,
    })
    expect(events.total).toBe(10)
    expect(events.items.some((e) => e.all_day)).toBe(true)
    expect(events.items.some((e) => e.timezone === 'America/New_York')).toBe(true)
    expect(events.items.some((e) => e.cost !== null)).toBe(true)
    expect(events.items.every((e) => e.start > T('2026-03-01T12:00:00Z'))).toBe(true)
    expect((await store.venues.list()).items.every((v) => v.geo_lat !== null)).toBe(true)
    const cats = await store.categories.list({ hide_empty: false, limit: 50 })
    expect(cats.items.some((c) => c.parent !== 0)).toBe(true)
    expect((await store.tags.list()).total).toBeGreaterThan(0)
  })
})

describe.each(testDatabases())('cal store migrations on $name', ({ open }) => {
  it('migrates concurrently and idempotently', async () => {
    const database = await open()
    try {
      const a = createCalStore(database)
      const b = createCalStore(database)
      await Promise.all([a.migrate(), b.migrate(), a.migrate()])
      const { rows } = await sql<{
        name: string
      }>`select name from cal_migration order by name`.execute(database.db)
      // Each once (the three runs raced), every one of them.
      expect(rows.map((r) => r.name)).toEqual(Object.keys(migrations).sort())
      expect(rows.map((r) => r.name)).toContain('0014_recurrence')
      // pg_trgm is there on both engines (PGlite bundles it), so search has its index.
      const { rows: indexes } = await sql<{ indexname: string }>`
        select indexname from pg_indexes where tablename = 'cal_event'`.execute(database.db)
      expect(indexes.map((r) => r.indexname)).toEqual(
        expect.arrayContaining(['cal_event_search_trgm_idx', 'cal_event_term_ids_idx']),
      )
      expect(await a.isEmpty()).toBe(true)
    } finally {
      await database.close()
    }
  })
})
