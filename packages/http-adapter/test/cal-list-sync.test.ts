import { testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalHarness, ids, openCal } from './cal-harness.js'

/** The store's clock, moved by the tests so `modified` stamps fall on either side of a bound. */
let storeTime = new Date('2026-02-01T10:00:00.250Z')
const tick = (ms: number) => {
  storeTime = new Date(storeTime.getTime() + ms)
}

describe.each(testDatabases())('calendar list filters for clients on $name', ({ open }) => {
  let t: CalHarness
  const id: Record<string, number> = {}
  const ev: Record<string, number> = {}

  beforeAll(async () => {
    storeTime = new Date('2026-02-01T10:00:00.250Z')
    t = await openCal(open, { storeNow: () => storeTime })
    // music ⊃ jazz ⊃ bebop; film stands alone.
    id.music = (await t.create('/categories', { name: 'Music' })).body.id
    id.jazz = (await t.create('/categories', { name: 'Jazz', parent: id.music })).body.id
    id.bebop = (await t.create('/categories', { name: 'Bebop', parent: id.jazz })).body.id
    id.film = (await t.create('/categories', { name: 'Film' })).body.id
    id.tag = (await t.create('/tags', { name: 'Outdoor' })).body.id
    id.hall = (await t.create('/venues', { venue: 'Hall' })).body.id
    id.barn = (await t.create('/venues', { venue: 'Barn', status: 'draft' })).body.id
    id.alice = (await t.create('/organizers', { organizer: 'Alice' })).body.id
    const make = async (key: string, body: Record<string, unknown>) => {
      ev[key] = (await t.create('/events', { end_date: '2026-04-30 23:00:00', ...body })).body.id
    }
    await make('music', {
      title: 'Music',
      start_date: '2026-04-01 10:00:00',
      categories: [id.music],
    })
    await make('jazz', { title: 'Jazz', start_date: '2026-04-02 10:00:00', categories: [id.jazz] })
    await make('bebop', {
      title: 'Bebop',
      start_date: '2026-04-03 10:00:00',
      categories: [id.bebop],
      venue: id.hall,
      organizer: [id.alice],
    })
    await make('film', {
      title: 'Film',
      start_date: '2026-04-04 10:00:00',
      categories: [id.film],
      tags: [id.tag],
    })
    await make('draft', { title: 'Draft', start_date: '2026-04-05 10:00:00', status: 'draft' })
  })

  afterAll(async () => {
    await t?.close()
  })

  describe('categories with descendants', () => {
    it('a parent matches events filed under any descendant, by id or slug', async () => {
      const all = [ev.music, ev.jazz, ev.bebop]
      expect(ids(await t.get(`/events?categories=${id.music}`))).toEqual(all)
      expect(ids(await t.get('/events?categories=music'))).toEqual(all)
      expect(ids(await t.get('/events?categories=jazz'))).toEqual([ev.jazz, ev.bebop])
      expect(ids(await t.get('/events?categories=bebop'))).toEqual([ev.bebop])
      expect(ids(await t.get('/events?categories=bebop,film'))).toEqual([ev.bebop, ev.film])
      expect((await t.get('/events?categories=music')).body.total).toBe(3)
    })

    it('ends on a parent cycle written behind the store', async () => {
      const db = t.database.db
      await sql`update cal_term set parent_id = ${id.bebop} where id = ${id.music}`.execute(db)
      try {
        const cycle = [ev.music, ev.jazz, ev.bebop]
        expect(ids(await t.get('/events?categories=jazz'))).toEqual(cycle)
        expect(ids(await t.get('/events?categories=music'))).toEqual(cycle)
        await sql`update cal_term set parent_id = ${id.film} where id = ${id.film}`.execute(db)
        expect(ids(await t.get('/events?categories=film'))).toEqual([ev.film])
      } finally {
        await sql`update cal_term set parent_id = null where id in (${id.music}, ${id.film})`.execute(
          db,
        )
      }
    })
  })

  describe('PHP-style list keys', () => {
    it('key[]= filters like repeated keys on the events list', async () => {
      expect(ids(await t.get('/events?categories[]=bebop&categories[]=film'))).toEqual([
        ev.bebop,
        ev.film,
      ])
      expect(ids(await t.get('/events?categories%5B%5D=film'))).toEqual([ev.film])
      expect(ids(await t.get('/events?categories[0]=film&categories[1]=bebop'))).toEqual([
        ev.bebop,
        ev.film,
      ])
      // Mixed with the plain key and a comma list, everything counts.
      expect(ids(await t.get('/events?categories=film&categories[]=jazz,bebop'))).toEqual([
        ev.jazz,
        ev.bebop,
        ev.film,
      ])
      expect(ids(await t.get(`/events?tags[]=${id.tag}`))).toEqual([ev.film])
      expect(ids(await t.get(`/events?venue[]=${id.hall}`))).toEqual([ev.bebop])
      expect(ids(await t.get(`/events?organizer[]=${id.alice}`))).toEqual([ev.bebop])
      expect(ids(await t.get(`/events?include[]=${ev.film}&include[]=${ev.jazz}`))).toEqual([
        ev.jazz,
        ev.film,
      ])
      expect(ids(await t.get('/events?status[]=draft', true))).toEqual([ev.draft])
      expect(ids(await t.get('/events?status[]=draft&status[]=publish', true))).toHaveLength(5)
    })

    it('key[]= filters on the venue, organizer and term lists', async () => {
      expect(ids(await t.get('/venues?status[]=draft', true), 'venues')).toEqual([id.barn])
      expect(ids(await t.get('/organizers?status[]=trash', true), 'organizers')).toEqual([])
      const cats = await t.get(`/categories?include[]=${id.film}&include[]=${id.jazz}`)
      expect(ids(cats, 'categories').sort()).toEqual([id.jazz, id.film].sort())
      const bySlug = await t.get('/categories?slug[]=bebop&hide_empty=false')
      expect(ids(bySlug, 'categories')).toEqual([id.bebop])
      const excluded = await t.get(`/tags?exclude[]=${id.tag}&hide_empty=false`)
      expect(ids(excluded, 'tags')).toEqual([])
    })

    it('key[]= values are checked like plain ones: never silently dropped', async () => {
      const anonymous = await t.get('/events?status[]=draft')
      expect(anonymous.status).toBe(401)
      const bad = await t.get('/events?venue[]=abc')
      expect(bad.status).toBe(400)
      expect(bad.body.data.params).toHaveProperty('venue')
      const unknown = await t.get('/events?categories[]=nope')
      expect(unknown.status).toBe(400)
      // A single-valued parameter given twice through brackets is refused, not half-read.
      expect((await t.get('/events?page[]=1&page[]=2')).status).toBe(400)
      expect(ids(await t.get('/events?per_page[]=1'))).toHaveLength(1)
    })
  })

  describe('modified_after / modified_before', () => {
    it('lists exactly what changed across a boundary: created, updated, trashed', async () => {
      // Everything so far was stamped at or before the boundary; move the clock past it.
      const boundary = new Date(storeTime.getTime() + 1_000)
      const after = boundary.toISOString().slice(0, 19).replace('T', ' ')
      tick(1_500) // 250 ms into the second after the boundary
      const fresh = (
        await t.create('/events', {
          title: 'Fresh',
          start_date: '2026-04-06 10:00:00',
          end_date: '2026-04-06 12:00:00',
        })
      ).body.id
      tick(1_000)
      expect(
        (await t.call('POST', `/events/${ev.jazz}`, { token: true, body: { title: 'Jazz!' } }))
          .status,
      ).toBe(200)
      tick(1_000)
      expect((await t.call('DELETE', `/events/${ev.film}`, { token: true })).status).toBe(200)
      expect(
        (await t.call('POST', `/venues/${id.hall}`, { token: true, body: { city: 'Gent' } }))
          .status,
      ).toBe(200)
      expect((await t.call('DELETE', `/organizers/${id.alice}`, { token: true })).status).toBe(200)

      const delta = await t.get(`/events?modified_after=${after}&status=any`, true)
      expect(ids(delta).sort()).toEqual([ev.jazz, fresh].sort())
      expect(delta.body.total).toBe(2)
      // Deletions: the trash with the same bound.
      expect(ids(await t.get(`/events?modified_after=${after}&status=trash`, true))).toEqual([
        ev.film,
      ])
      // The rendered modified_utc of the delta (whole seconds, rounded down) is not before the bound.
      for (const e of delta.body.events) expect(e.modified_utc >= after).toBe(true)
      // Before the bound: the untouched ones only (jazz was changed, film trashed).
      const before = await t.get(`/events?modified_before=${after}&status=any`, true)
      expect(ids(before).sort()).toEqual([ev.music, ev.bebop, ev.draft].sort())
      // Both bounds; an offset is honoured; a bare day is its UTC midnight.
      // (the trash and venue changes are 750 ms into this second: a bound of it leaves them out)
      const lastSecond = new Date(Math.floor(storeTime.getTime() / 1000) * 1000)
      const between = await t.get(
        `/events?modified_after=${after}&modified_before=${encodeURIComponent(lastSecond.toISOString())}&status=any`,
        true,
      )
      expect(ids(between)).toEqual([ev.jazz, fresh])
      const inParis = lastSecond
        .toISOString()
        .replace('Z', '+01:00')
        .replace(/T(\d\d)/, (_, h) => `T${String(Number(h) + 1).padStart(2, '0')}`)
      expect(
        ids(
          await t.get(
            `/events?modified_after=${after}&modified_before=${encodeURIComponent(inParis)}`,
          ),
        ),
      ).toEqual([ev.jazz, fresh])
      expect(ids(await t.get('/events?modified_after=2026-02-02'))).toEqual([])
      expect(ids(await t.get('/events?modified_before=2026-02-02&status=any', true))).toHaveLength(
        5,
      )
      // Venues and organizers take the same bounds.
      expect(ids(await t.get(`/venues?modified_after=${after}`), 'venues')).toEqual([id.hall])
      expect(
        ids(await t.get(`/venues?modified_before=${after}&status=any`, true), 'venues'),
      ).toEqual([id.barn])
      expect(
        ids(await t.get(`/organizers?modified_after=${after}&status=trash`, true), 'organizers'),
      ).toEqual([id.alice])
      expect(ids(await t.get(`/organizers?modified_after=${after}`), 'organizers')).toEqual([])
    })

    it('a bound at the exact second of a change, rounded down as modified_utc is, still returns it', async () => {
      const stamp = (await t.get(`/events/${ev.jazz}`, true)).body.modified_utc
      expect(ids(await t.get(`/events?modified_after=${encodeURIComponent(stamp)}`))).toContain(
        ev.jazz,
      )
    })

    it('refuses what is not a date with 400 naming the parameter', async () => {
      for (const bad of [
        '',
        'yesterdayish',
        '2026-02-30',
        '1e9',
        '2026-13-01',
        '99999-01-01',
        '0050-01-01',
        '0999-12-31 23:59:59',
        '10000-01-01',
      ]) {
        for (const key of ['modified_after', 'modified_before']) {
          for (const list of ['events', 'venues', 'organizers']) {
            const res = await t.get(`/${list}?${key}=${encodeURIComponent(bad)}`)
            expect(res.status, `${list} ${key}=${bad}`).toBe(400)
            expect(res.body.data.params).toHaveProperty(key)
          }
        }
      }
    })
  })

  describe('_fields', () => {
    it('cuts every list item and every read down to the named fields', async () => {
      const list = await t.get(`/events?_fields=id,title,start_date&include=${ev.bebop}`)
      expect(list.body.events).toEqual([
        { id: ev.bebop, title: 'Bebop', start_date: '2026-04-03 10:00:00' },
      ])
      // The envelope and the headers stay whole.
      expect(list.body.total).toBe(1)
      expect(list.headers.get('X-WP-Total')).toBe('1')
      const nested = await t.get(`/events?_fields[]=id&_fields[]=venue.venue&include=${ev.bebop}`)
      expect(nested.body.events).toEqual([{ id: ev.bebop, venue: { venue: 'Hall' } }])
      for (const [path, key] of [
        ['/venues?_fields=id', 'venues'],
        ['/organizers?_fields=id&status=trash', 'organizers'],
        ['/categories?_fields=id&hide_empty=false', 'categories'],
        ['/tags?_fields=id&hide_empty=false', 'tags'],
      ] as const) {
        const res = await t.get(path, true)
        expect(res.status, path).toBe(200)
        expect(res.body[key].length, path).toBeGreaterThan(0)
        for (const item of res.body[key]) expect(Object.keys(item), path).toEqual(['id'])
      }
      const read = await t.get(`/events/${ev.bebop}?_fields=title,nope`)
      expect(read.body).toEqual({ title: 'Bebop' })
      const slug = (await t.get(`/events/${ev.bebop}`)).body.slug
      expect((await t.get(`/events/by-slug/${slug}?_fields=id`)).body).toEqual({ id: ev.bebop })
      expect((await t.get(`/venues/${id.hall}?_fields=venue`)).body).toEqual({ venue: 'Hall' })
      expect((await t.get(`/categories/${id.jazz}?_fields=parent,id`)).body).toEqual({
        id: id.jazz,
        parent: id.music,
      })
      // Empty or unknown: the whole record, or nothing of it.
      expect(
        Object.keys((await t.get(`/events/${ev.bebop}?_fields=`)).body).length,
      ).toBeGreaterThan(20)
      expect((await t.get(`/events/${ev.bebop}?_fields=x`)).body).toEqual({})
      // Errors are never cut.
      const missing = await t.get('/events/999999?_fields=id')
      expect(missing.status).toBe(404)
      expect(missing.body.code).toBeDefined()
    })
  })
})
