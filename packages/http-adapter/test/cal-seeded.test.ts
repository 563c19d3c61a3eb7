import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalHarness, ids, openCal } from './cal-harness.js'
import { byStart, type ModelEvent, type SeededCalendar, seedCalendar } from './seeded-calendar.js'

const visible = (e: ModelEvent) => e.status === 'publish' && !e.hidden

describe.each(testDatabases())('calendar lists over a seeded calendar on $name', ({ open }) => {
  let t: CalHarness
  let cal: SeededCalendar
  const todayStart = Date.UTC(2026, 2, 1)
  const windowEnd = Date.UTC(2028, 2, 1, 15)

  beforeAll(async () => {
    t = await openCal(open)
    cal = await seedCalendar(t.store, 2400)
  })
  afterAll(() => t?.close())

  const walk = async (path: string) => {
    const seen: number[] = []
    let next: string | undefined = path
    let pages = 0
    while (next) {
      const res = await t.call('GET', next)
      expect(res.status).toBe(200)
      seen.push(...ids(res))
      pages++
      next = res.body.next_rest_url
        ? new URL(res.body.next_rest_url).href.replace('http://cal.test/cal/events/v1', '')
        : undefined
    }
    return { seen, pages }
  }

  it('counts the default window like the model', async () => {
    const expected = cal.events
      .filter((e) => visible(e) && e.end >= todayStart && e.start <= windowEnd)
      .sort(byStart)
    expect(expected.length).toBeGreaterThan(1000)
    const res = await t.get('/events?per_page=50&page=3')
    expect(res.body.total).toBe(expected.length)
    expect(res.body.total_pages).toBe(Math.ceil(expected.length / 50))
    expect(ids(res)).toEqual(expected.slice(100, 150).map((e) => e.id))
  })

  it('walks every page of a category + window + search query through next_rest_url', async () => {
    const category = cal.categories[3] as { id: number; slug: string }
    const from = Date.UTC(2026, 5, 1)
    const to = Date.UTC(2027, 11, 31, 23, 59, 59)
    const expected = cal.events
      .filter(
        (e) =>
          visible(e) &&
          !e.protected &&
          e.categories.includes(category.id) &&
          e.end >= from &&
          e.start <= to &&
          e.text.includes('jazz'),
      )
      .sort(byStart)
      .map((e) => e.id)
    expect(expected.length).toBeGreaterThan(10)
    const { seen, pages } = await walk(
      `/events?start_date=2026-06-01&end_date=2027-12-31&categories=${category.slug}&search=jazz&per_page=7`,
    )
    expect(seen).toEqual(expected)
    expect(pages).toBe(Math.ceil(expected.length / 7))
  })

  it('matches the model for tags, venue, featured and explicit bounds together', async () => {
    const [a, b] = [cal.tags[0], cal.tags[1]] as { id: number; slug: string }[]
    const venue = cal.venues[2] as number
    const after = Date.UTC(2026, 0, 1)
    const tagIds = [a?.id, b?.id]
    const expected = cal.events
      .filter(
        (e) =>
          visible(e) &&
          e.tags.some((id) => tagIds.includes(id)) &&
          e.venue === venue &&
          e.start > after,
      )
      .sort(byStart)
      .map((e) => e.id)
    expect(expected.length).toBeGreaterThan(3)
    const { seen } = await walk(
      `/events?tags=${a?.slug},${b?.id}&venue=${venue}&starts_after=2026-01-01&strict_dates=true&per_page=50`,
    )
    expect(seen).toEqual(expected)
    const featured = cal.events.filter(
      (e) => visible(e) && e.featured && e.end >= todayStart && e.start <= windowEnd,
    )
    expect((await t.get('/events?featured=true')).body.total).toBe(featured.length)
  })

  it('reports published-event counts on categories', async () => {
    const res = await t.get('/categories?hide_empty=false&per_page=50')
    for (const term of res.body.categories as { id: number; count: number }[]) {
      const count = cal.events.filter(
        (e) => e.status === 'publish' && e.categories.includes(term.id),
      ).length
      expect(term.count, `category ${term.id}`).toBe(count)
    }
  })

  it('never shows protected text in any list page', async () => {
    const protectedIds = new Set(cal.events.filter((e) => e.protected).map((e) => e.id))
    const { seen } = await walk('/events?start_date=2025-01-01&end_date=2029-01-01&per_page=50')
    expect(seen.filter((id) => protectedIds.has(id)).length).toBeGreaterThan(0)
    const page = await t.get(`/events?include=${[...protectedIds].join(',')}`)
    for (const e of page.body.events)
      expect(e).toMatchObject({ password_protected: true, description: '', excerpt: '' })
  })
})
