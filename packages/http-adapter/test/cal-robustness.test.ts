import { testDatabases } from '@kcore/db/testing'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BASE, type CalHarness, openCal, TOKEN } from './cal-harness.js'

describe.each(testDatabases())('calendar API under malformed input on $name', ({ open }) => {
  let t: CalHarness
  let eventId = 0

  beforeAll(async () => {
    t = await openCal(open)
    eventId = (
      await t.create('/events', {
        title: 'Target',
        start_date: '2026-03-05 10:00',
        end_date: '2026-03-05 11:00',
      })
    ).body.id
  })
  afterAll(() => t?.close())

  it('answers 4xx JSON, never 500, to hostile values', async () => {
    const cases: [string, string, unknown?][] = [
      ['GET', '/events/99999999999'],
      ['GET', '/events/2147483648'],
      ['GET', '/events/0'],
      // Past every occurrence id (slot < 2^20, so ids < 2^53): no event can have it.
      ['GET', '/events?include=99999999999999999'],
      ['GET', '/events?search=%00'],
      ['GET', '/events/by-slug/%00'],
      ['GET', '/events/by-slug/%E0%A4%A'],
      ['GET', '/events?start_date=2026-13-45'],
      ['GET', '/events?geoloc_lat=91&geoloc_lng=0'],
      ['GET', '/events?page=99999999999999'],
      ['GET', '/venues?event=abc'],
      ['GET', '/categories?parent=-1'],
      [
        'POST',
        '/events',
        { title: 'a\u0000b', start_date: '2026-03-05 10:00', end_date: '2026-03-05 11:00' },
      ],
      [
        'POST',
        '/events',
        { title: 'x', start_date: '2026-03-05 10:00', end_date: '2026-03-05 11:00', author: 1e12 },
      ],
      [
        'POST',
        '/events',
        {
          title: 'x',
          start_date: '2026-03-05 10:00',
          end_date: '2026-03-05 11:00',
          venue: 99999999999,
        },
      ],
      ['POST', '/events', []],
      ['POST', '/events', 'just a string'],
      ['POST', '/events', { title: ['x'], start_date: 5, end_date: null }],
      ['PATCH', `/events/${eventId}`, { categories: [{ nested: true }] }],
      ['PATCH', `/events/${eventId}`, { post_parent: 2147483648 }],
      ['POST', '/categories', { name: 'x', parent: 99999 }],
      ['POST', '/venues', { venue: 'x', geo_lat: 'north' }],
    ]
    for (const [method, path, body] of cases) {
      const res = await t.call(method, path, { body, token: true })
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBeGreaterThanOrEqual(400)
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBeLessThan(500)
      expect(res.headers.get('content-type')).toContain('application/json')
    }
    const text = await t.handler(
      new Request(`${BASE}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' },
        body: 'title=x',
      }),
    )
    expect(text.status).toBe(415)
  })

  it('answers 404 for ids that cannot exist, like any unknown id', async () => {
    for (const path of ['/events/0', '/events/99999999999', '/venues/2147483648', '/tags/0']) {
      const res = await t.call('GET', path)
      expect(res.status, path).toBe(404)
      expect(res.body.code, path).toMatch(/-not-found$/)
    }
    const del = await t.call('DELETE', '/organizers/99999999999', { token: true })
    expect(del.body.code).toBe('organizer-not-found')
  })

  it('never answers 500 to arbitrary list queries', async () => {
    const keys = [
      'start_date',
      'end_date',
      'search',
      'categories',
      'tags',
      'venue',
      'include',
      'geoloc_lat',
      'geoloc_lng',
      'geoloc_radius',
      'page',
      'per_page',
      'status',
      'strict_dates',
      'starts_after',
    ]
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...keys), fc.string({ maxLength: 12 })), {
          maxLength: 4,
        }),
        async (pairs) => {
          const query = new URLSearchParams(pairs).toString()
          const res = await t.call('GET', `/events?${query}`)
          expect(res.status, query).toBeLessThan(500)
        },
      ),
      { numRuns: 60 },
    )
  })
})
