import { MAX_EVENT_LINKS } from '@cal/store'
import { testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BASE, type CalHarness, openCal, TOKEN } from './cal-harness.js'

// Issue 26 item 1: whatever a valid write stored, every list that includes it answers 200;
// the write limits are the ones reads can always serve, and one past them is a 400 naming
// the request field (item 6: never a field the client did not send).
const LIMIT = MAX_EVENT_LINKS

const day = { start_date: '2026-03-05 10:00:00', end_date: '2026-03-05 11:00:00' }

describe.each(testDatabases())('stored relations never break a read on $name', ({ open }) => {
  let t: CalHarness
  /** Events each linking LIMIT tags of their own. */
  const events: number[] = []
  let organizerIds: number[] = []

  /** `count` rows inserted by SQL (fixtures at the limit, not what is under test). */
  async function seed(table: 'cal_term' | 'cal_organizer', count: number, prefix: string) {
    const db = t.database.db
    const query =
      table === 'cal_term'
        ? sql<{ id: number }>`insert into cal_term (taxonomy, name, slug)
            select 'cal_event_tag', ${prefix} || g, ${prefix} || '-' || g
            from generate_series(1, ${count}::int) g returning id`
        : sql<{ id: number }>`insert into cal_organizer (status, created, modified, name, slug)
            select 'publish', now(), now(), ${prefix} || g, ${prefix} || '-' || g
            from generate_series(1, ${count}::int) g returning id`
    return (await query.execute(db)).rows.map((r) => r.id)
  }

  beforeAll(async () => {
    t = await openCal(open)
    // Eleven events at the tag limit, all on one day: one page of them names 11,000 tags.
    const tags = await seed('cal_term', 11 * LIMIT, 'bulk')
    organizerIds = await seed('cal_organizer', LIMIT + 1, 'host')
    for (let i = 0; i < 11; i++) {
      const tagIds = tags.slice(i * LIMIT, (i + 1) * LIMIT)
      events.push((await t.create('/events', { title: `Full ${i}`, ...day, tags: tagIds })).body.id)
    }
  }, 120_000)
  afterAll(() => t?.close())

  it('answers every list form over events at the limit with 200', async () => {
    const forms = [
      '/events',
      '/events?per_page=50',
      '/events?per_page=50&_fields=id,tags',
      `/events?per_page=50&include=${events.join(',')}`,
      `/events?per_page=50&tags=${(await t.get(`/events/${events[0]}`)).body.tags[0].id}`,
    ]
    for (const path of forms) {
      const res = await t.get(path)
      expect(res.status, `${path} ${JSON.stringify(res.body).slice(0, 200)}`).toBe(200)
      expect(res.body.events.length, path).toBeGreaterThan(0)
      for (const event of res.body.events) expect(event.tags, path).toHaveLength(LIMIT)
    }
    const ics = await t.handler(new Request(`${BASE}/events?format=ics&per_page=50`))
    expect(ics.status).toBe(200)
    expect((await ics.text()).match(/BEGIN:VEVENT/g)).toHaveLength(events.length)
  })

  it('stores a write at the limit in each relation field, and lists it', async () => {
    const names = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => `${prefix}${i}`)
    const started = performance.now()
    const full = await t.create('/events', {
      title: 'At the limit',
      ...day,
      tags: names('mt', LIMIT),
      categories: names('mc', LIMIT),
      organizer: organizerIds.slice(0, LIMIT),
    })
    const elapsed = performance.now() - started
    console.log(
      `${LIMIT} new tags + ${LIMIT} new categories + ${LIMIT} organizers: ${elapsed.toFixed(0)} ms`,
    )
    expect(full.body.tags).toHaveLength(LIMIT)
    expect(full.body.categories).toHaveLength(LIMIT)
    expect(full.body.organizer).toHaveLength(LIMIT)
    const listed = await t.get(`/events?per_page=50&include=${full.body.id}`)
    expect(listed.status).toBe(200)
    expect(listed.body.events[0].organizer).toHaveLength(LIMIT)
  })

  it('resolves inline organizers at the limit: existing names reused in order, new ones made', async () => {
    const half = LIMIT / 2
    const inline = [
      ...Array.from({ length: half }, (_, i) => ({ organizer: `HOST${i + 1}` })),
      ...Array.from({ length: half }, (_, i) => ({
        organizer: `guest ${i}`,
        email: `g${i}@x.org`,
      })),
    ]
    const started = performance.now()
    const made = await t.create('/events', { title: 'Inline', ...day, organizer: inline })
    console.log(`${LIMIT} inline organizers: ${(performance.now() - started).toFixed(0)} ms`)
    const got = made.body.organizer as { id: number; organizer: string; email: string }[]
    expect(got).toHaveLength(LIMIT)
    expect(got.slice(0, half).map((o) => o.id)).toEqual(organizerIds.slice(0, half))
    expect(got.slice(half).map((o) => o.organizer)).toEqual(
      inline.slice(half).map((o) => o.organizer),
    )
    expect(got.at(-1)?.email).toBe(`g${half - 1}@x.org`)
    // Named again, the new ones are found, not made twice.
    const again = await t.create('/events', { title: 'Inline again', ...day, organizer: inline })
    expect(again.body.organizer.map((o: { id: number }) => o.id)).toEqual(got.map((o) => o.id))
  })

  it('refuses one past the limit with a 400 naming the request field', async () => {
    const over = Array.from({ length: LIMIT + 1 }, (_, i) => `over${i}`)
    const cases: [string, unknown][] = [
      ['tags', over],
      ['categories', over],
      ['organizer', organizerIds],
    ]
    for (const [field, value] of cases) {
      const created = await t.call('POST', '/events', {
        body: { title: 'Too many', ...day, [field]: value },
        token: true,
      })
      expect(created.status, field).toBe(400)
      expect(Object.keys(created.body.data.params), field).toEqual([field])
      const updated = await t.call('PATCH', `/events/${events[0]}`, {
        body: { [field]: value },
        token: true,
      })
      expect(updated.status, field).toBe(400)
      expect(Object.keys(updated.body.data.params), field).toEqual([field])
      // Validation before authentication: an anonymous over-long write is a 400 too.
      const anonymous = await t.call('POST', '/events', {
        body: { title: 'x', ...day, [field]: value },
      })
      expect(anonymous.status, field).toBe(400)
    }
  })

  it('names by name in an event write any term a term write may store', async () => {
    const long = `${'long name '.repeat(49)}end` // 493 characters: within the store's 500
    const tag = (await t.create('/tags', { name: long })).body
    const named = await t.create('/events', { title: 'Long tag', ...day, tags: [long] })
    expect(named.body.tags.map((x: { id: number }) => x.id)).toEqual([tag.id])
    const tooLong = await t.call('POST', '/events', {
      body: { title: 'x', ...day, tags: ['y'.repeat(501)] },
      token: true,
    })
    expect(tooLong.status).toBe(400)
    expect(Object.keys(tooLong.body.data.params)).toEqual(['tags'])
  })

  it('names the request field for 50,000 organizer ids (issue 26 item 6)', async () => {
    const res = await t.call('POST', '/events', {
      body: { title: 'Crowd', ...day, organizer: Array.from({ length: 50_000 }, (_, i) => i + 1) },
      token: `Bearer ${TOKEN}`,
    })
    expect(res.status).toBe(400)
    expect(Object.keys(res.body.data.params)).toEqual(['organizer'])
  })
})
