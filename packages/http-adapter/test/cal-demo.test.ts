import { seedDemoCalendar } from '@cal/store'
import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  eventRecord,
  listEnvelope,
  organizerRecord,
  termRecord,
  venueRecord,
} from '../src/cal/response-schemas.js'
import { type CalHarness, NOW, openCal } from './cal-harness.js'

// The demo calendar the CLI seeds on first start must read cleanly through every route.
describe.each(testDatabases())('calendar API over the demo calendar on $name', ({ open }) => {
  let t: CalHarness

  beforeAll(async () => {
    t = await openCal(open)
    await seedDemoCalendar(t.store, { now: NOW })
  })
  afterAll(() => t?.close())

  it('lists and reads every record of every kind', async () => {
    const events = await t.get('/events?per_page=50')
    expect(events.status).toBe(200)
    expect(events.body.total).toBeGreaterThan(0)
    for (const [plural, key, schema] of [
      ['events', 'events', eventRecord],
      ['venues', 'venues', venueRecord],
      ['organizers', 'organizers', organizerRecord],
      ['categories', 'categories', termRecord],
      ['tags', 'tags', termRecord],
    ] as const) {
      // With the token, so password-protected events read the same in both places.
      const list = await t.get(`/${plural}?per_page=50`, true)
      expect(list.status, plural).toBe(200)
      expect(list.body[key].length, plural).toBeGreaterThan(0)
      // Exactly the spec's fields with the spec's types (strict: no extra, none missing).
      listEnvelope(key, schema).parse(list.body)
      for (const record of list.body[key] as { id: number; slug: string }[]) {
        const one = await t.get(`/${plural}/${record.id}`, true)
        expect(one.status, `${plural}/${record.id}`).toBe(200)
        expect(one.body, `${plural}/${record.id}`).toEqual(record)
        const bySlug = await t.get(`/${plural}/by-slug/${encodeURIComponent(record.slug)}`, true)
        expect(bySlug.body.id, `${plural} by slug ${record.slug}`).toBe(record.id)
      }
    }
    for (const event of events.body.events) {
      expect(event.start_date <= event.end_date).toBe(true)
      expect(event.utc_start_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      expect(typeof event.timezone_abbr).toBe('string')
    }
  })
})
