import { testDatabases } from '@kcore/db/testing'
import fc from 'fast-check'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { expandFeed } from './cal-feed-reader.js'
import { BASE, type CalHarness, ids, openCal } from './cal-harness.js'

const WINDOW = 'start_date=2026-03-01&end_date=2026-12-31'

/** An RFC 5545 weekly series: Mondays 10:00–11:00 Berlin from 2026-03-02. */
const weekly = (rules = ['FREQ=WEEKLY;BYDAY=MO'], extra: object = {}) => ({
  title: 'Weekly',
  start_date: '2026-03-02 10:00:00',
  end_date: '2026-03-02 11:00:00',
  timezone: 'Europe/Berlin',
  recurrence: { rules },
  ...extra,
})

describe.each(testDatabases())('recurring series over HTTP on $name', ({ open }) => {
  let t: CalHarness

  beforeAll(async () => {
    t = await openCal(open)
  })
  afterAll(() => t?.close())
  beforeEach(async () => {
    await t.database.db.deleteFrom('cal_event' as never).execute()
  })

  /** Every occurrence of series `id` in the window, through paged lists (per_page 3). */
  async function occurrences(id: number, perPage = 3) {
    const all = []
    for (let page = 1; ; page++) {
      const res = await t.get(
        `/events?${WINDOW}&post_parent=${id}&per_page=${perPage}&page=${page}`,
      )
      if (res.status === 404) break
      expect(res.status).toBe(200)
      all.push(...res.body.events)
      if (!res.body.next_rest_url) break
    }
    return all
  }

  it('creates a series, lists its occurrences as events and reads any by id', async () => {
    const created = await t.create('/events', weekly())
    const series = created.body
    expect(series).toMatchObject({
      is_recurring: true,
      post_parent: series.id,
      recurrence: { rules: ['FREQ=WEEKLY;BYDAY=MO'] },
      occurrence_start_utc: '2026-03-02 09:00:00',
    })
    const listed = await occurrences(series.id)
    // Mondays from 2 March to 28 December 2026.
    expect(listed).toHaveLength(44)
    expect(new Set(listed.map((e) => e.id)).size).toBe(44)
    expect(listed.map((e) => e.start_date.slice(11))).toEqual(Array(44).fill('10:00:00'))
    const page = await t.get(`/events?${WINDOW}&post_parent=${series.id}&per_page=5`)
    expect(page.headers.get('X-TEC-Total')).toBe('44')
    expect(page.body.total_pages).toBe(9)
    const fifth = listed[4]
    const read = await t.get(`/events/${fifth.id}`)
    expect(read.status).toBe(200)
    expect(read.body).toEqual(fifth)
    expect(read.body).toMatchObject({
      start_date: '2026-03-30 10:00:00',
      utc_start_date: '2026-03-30 08:00:00',
      post_parent: series.id,
      is_recurring: true,
      occurrence_start_utc: '2026-03-30 08:00:00',
    })
    const single = await t.create('/events', { ...weekly(), recurrence: undefined })
    expect(single.body).toMatchObject({ is_recurring: false, recurrence: null, post_parent: 0 })
  })

  it('answers for an occurrence in year 9000 of an infinite series, never listed', async () => {
    const series = (await t.create('/events', weekly(['FREQ=DAILY']))).body
    const [, second] = (await t.get(`/events?post_parent=${series.id}&per_page=2`)).body.events
    const slot = Math.floor(second.id / 2 ** 33)
    const key = (Date.UTC(9000, 0, 1, 10, 0) - Date.UTC(1000, 0, 1)) / 60_000
    const far = await t.get(`/events/${slot * 2 ** 33 + key}`)
    expect(far.status).toBe(200)
    expect(far.body).toMatchObject({ start_date: '9000-01-01 10:00:00', post_parent: series.id })
    expect((await t.get(`/events/${slot * 2 ** 33 + key + 1}`)).status).toBe(404)
  })

  it('refuses each bad recurrence with 400 rest_invalid_param naming recurrence', async () => {
    for (const recurrence of [
      { rules: ['FREQ=SECONDLY'] },
      { rules: ['FREQ=MINUTELY'] },
      { rules: ['FREQ=DAILY;COUNT=0'] },
      { rules: ['FREQ=DAILY;UNTIL=20200101T000000Z'] },
      { rules: ['NOT A RULE'] },
      { rules: Array(11).fill('FREQ=DAILY') },
      { rules: ['FREQ=DAILY'], exdates: Array(1001).fill('2026-03-03 10:00:00') },
      { rules: ['FREQ=DAILY'], rdates: ['0999-12-31 10:00:00'] },
      { rules: [] },
      { rules: 'FREQ=DAILY' },
      'FREQ=DAILY',
      42,
    ]) {
      const res = await t.call('POST', '/events', {
        body: weekly(undefined, { recurrence }),
        token: true,
      })
      expect(res.status, JSON.stringify(recurrence).slice(0, 80)).toBe(400)
      expect(res.body.code).toBe('rest_invalid_param')
      expect(Object.keys(res.body.data.params)).toEqual(['recurrence'])
      // Validation before authentication, as for every field.
      const anonymous = await t.call('POST', '/events', { body: weekly(undefined, { recurrence }) })
      expect(anonymous.status).toBe(400)
    }
    const series = (await t.create('/events', weekly())).body
    const bad = await t.call('PATCH', `/events/${series.id}?scope=this`, {
      body: { recurrence: { rules: ['FREQ=DAILY'] } },
      token: true,
    })
    expect(bad.status).toBe(400)
    expect(Object.keys(bad.body.data.params)).toEqual(['recurrence'])
    const badScope = await t.call('PATCH', `/events/${series.id}?scope=some`, {
      body: {},
      token: true,
    })
    expect(badScope.status).toBe(400)
  })

  it('edits this, following and all, and deletes one occurrence', async () => {
    const series = (await t.create('/events', weekly(['FREQ=WEEKLY;BYDAY=MO;COUNT=10']))).body
    const before = await occurrences(series.id)
    const id = (n: number) => before[n - 1].id
    const edit = (n: number, body: object, scope?: string) =>
      t.call('PATCH', `/events/${id(n)}${scope ? `?scope=${scope}` : ''}`, { body, token: true })

    expect((await edit(5, { title: 'Fifth' })).body).toMatchObject({ id: id(5), title: 'Fifth' })
    expect((await edit(2, { title: 'All', scope: 'all' })).status).toBe(200)
    let now = await occurrences(series.id)
    expect(now.map((e) => e.title)).toEqual([
      ...Array(4).fill('All'),
      'Fifth',
      ...Array(5).fill('All'),
    ])
    expect(now.map((e) => e.id)).toEqual(before.map((e) => e.id))

    const gone = await t.call('DELETE', `/events/${id(3)}`, { token: true })
    expect(gone.body).toMatchObject({ id: id(3), status: 'trash' })
    // A deleted occurrence is a trashed record (issue 47).
    expect((await t.get(`/events/${id(3)}`)).status).toBe(403)
    now = await occurrences(series.id)
    expect(now.map((e) => e.id)).toEqual(before.filter((_, i) => i !== 2).map((e) => e.id))

    const split = await edit(7, { title: 'Later' }, 'following')
    expect(split.status).toBe(200)
    const kept = await occurrences(series.id)
    expect(kept.map((e) => e.id)).toEqual(now.slice(0, 5).map((e) => e.id))
    expect(kept.map((e) => e.title)).toEqual(['All', 'All', 'All', 'Fifth', 'All'])
    const later = await occurrences(split.body.id)
    expect(later.map((e) => e.start_date)).toEqual(before.slice(6).map((e) => e.start_date))
    expect(later.map((e) => e.title)).toEqual(Array(4).fill('Later'))

    const moved = await t.call('PATCH', `/events/${series.id}?scope=all`, {
      body: { recurrence: { rules: ['FREQ=WEEKLY;BYDAY=TU;COUNT=5'] } },
      token: true,
    })
    // The series starts on a Monday: not an occurrence of the new rule.
    expect(moved.status).toBe(400)
    expect(Object.keys(moved.body.data.params)).toEqual(['recurrence'])
    const tuesdays = await t.call('PATCH', `/events/${series.id}?scope=all`, {
      body: {
        recurrence: { rules: ['FREQ=WEEKLY;BYDAY=TU;COUNT=5'] },
        start_date: '2026-03-03 10:00:00',
        end_date: '2026-03-03 11:00:00',
      },
      token: true,
    })
    expect(tuesdays.status).toBe(200)
    // The fifth (a Monday) no longer exists: its override is dropped and named.
    expect(tuesdays.body.dropped_overrides).toEqual([id(5)])
    const all = await t.call('DELETE', `/events/${series.id}?scope=all`, { token: true })
    expect(all.body.status).toBe('trash')
    expect(await occurrences(series.id)).toEqual([])
  })

  it('pages occurrences and single events together, each once, in order', async () => {
    await t.create('/events', weekly(['FREQ=DAILY;INTERVAL=2']))
    await t.create(
      '/events',
      weekly(['FREQ=WEEKLY;BYDAY=TU,FR'], {
        title: 'Other',
        start_date: '2026-03-03 10:00:00',
        end_date: '2026-03-03 11:00:00',
      }),
    )
    for (let i = 0; i < 7; i++) {
      const day = new Date(Date.UTC(2026, 2, 3 + i * 9)).toISOString().slice(0, 10)
      await t.create('/events', {
        title: `Single ${i}`,
        start_date: `${day} 10:00:00`,
        end_date: `${day} 12:00:00`,
      })
    }
    const seen: { id: number; start: string }[] = []
    let total = 0
    for (let page = 1; ; page++) {
      const res = await t.get(`/events?${WINDOW}&per_page=23&page=${page}`)
      if (res.status === 404) break
      total = res.body.total
      seen.push(
        ...res.body.events.map((e: { id: number; utc_start_date: string }) => ({
          id: e.id,
          start: e.utc_start_date,
        })),
      )
    }
    expect(seen).toHaveLength(total)
    expect(new Set(seen.map((s) => s.id)).size).toBe(total)
    const sorted = [...seen].sort((a, b) => a.start.localeCompare(b.start))
    expect(seen.map((s) => s.start)).toEqual(sorted.map((s) => s.start))
  })
})

/** Occurrences of a feed over [from, to] (ms) by ical.js, as `ISO-start title`, sorted. */
function expandedFeed(feed: string, from: number, to: number) {
  return expandFeed(feed, from, to)
    .map((o) => `${new Date(o.startMs).toISOString()} ${o.title}`)
    .sort()
}

describe.each(testDatabases())('the feed of series on $name', ({ open, name }) => {
  let t: CalHarness
  beforeAll(async () => {
    t = await openCal(open)
  })
  afterAll(() => t?.close())

  // Found by the property below (seed 1314634116): the edit shares its series' id.
  it('writes an edit of the first occurrence as an instance, not a second series', async () => {
    await t.database.db.deleteFrom('cal_event' as never).execute()
    const series = await t.create('/events', {
      title: 'S0',
      start_date: '2026-01-01 09:00:00',
      end_date: '2026-01-01 10:30:00',
      timezone: 'UTC',
      recurrence: { rules: ['FREQ=DAILY;COUNT=30'] },
    })
    const edit = await t.call('PATCH', `/events/${series.body.id}`, {
      body: { title: 'E0.0' },
      token: true,
    })
    expect(edit.status).toBe(200)
    const query = 'start_date=2026-01-01 00:00:00&end_date=2026-01-03 00:00:00&strict_dates=true'
    const feed = await (await t.handler(new Request(`${BASE}/events?${query}&format=ics`))).text()
    const from = Date.UTC(2026, 0, 1)
    expect(expandedFeed(feed, from, from + 2 * 86_400_000), feed).toEqual([
      '2026-01-01T09:00:00.000Z E0.0',
      '2026-01-02T09:00:00.000Z S0',
    ])
  })

  it("lists exactly the occurrences ical.js expands from this server's own feed", async () => {
    const spec = fc.record({
      series: fc.array(
        fc.record({
          // Rules whose occurrences include any first start (a series starts on one).
          rule: fc.constantFrom(
            'FREQ=DAILY;COUNT=30',
            'FREQ=WEEKLY',
            'FREQ=DAILY;INTERVAL=4',
            'FREQ=MONTHLY;COUNT=8',
            'FREQ=WEEKLY;INTERVAL=2;UNTIL=20261001T000000Z',
          ),
          zone: fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Sydney'),
          day: fc.integer({ min: 1, max: 28 }),
          month: fc.integer({ min: 1, max: 9 }),
          allDay: fc.boolean(),
          edits: fc.array(
            fc.tuple(fc.integer({ min: 0, max: 12 }), fc.constantFrom('title', 'move', 'drop')),
            { maxLength: 3 },
          ),
        }),
        { minLength: 1, maxLength: 3 },
      ),
      window: fc.tuple(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 120 })),
    })
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31)
    await fc.assert(
      fc.asyncProperty(spec, async ({ series, window }) => {
        await t.database.db.deleteFrom('cal_event' as never).execute()
        const from = Date.UTC(2026, 0, 1) + window[0] * 86_400_000
        const to = from + window[1] * 86_400_000
        const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')
        const query = `start_date=${iso(from)}&end_date=${iso(to)}&strict_dates=true`
        for (const [i, s] of series.entries()) {
          const day = `2026-${String(s.month).padStart(2, '0')}-${String(s.day).padStart(2, '0')}`
          // All-day VEVENTs are floating dates (ical.js reads them in its own zone, UTC here):
          // compared as instants, they are written in UTC.
          const created = (
            await t.create('/events', {
              title: `S${i}`,
              start_date: `${day} 09:${String(i).padStart(2, '0')}:00`,
              end_date: `${day} 10:30:00`,
              timezone: s.allDay ? 'UTC' : s.zone,
              all_day: s.allDay,
              recurrence: { rules: [s.rule] },
            })
          ).body
          const list = await t.get(
            `/events?post_parent=${created.id}&start_date=2026-01-01&end_date=2027-12-31&per_page=50`,
          )
          for (const [n, what] of s.edits) {
            const target = list.body.events[n]
            if (!target) continue
            const path = `/events/${target.id}`
            if (what === 'drop') await t.call('DELETE', path, { token: true })
            else if (what === 'title')
              await t.call('PATCH', path, { body: { title: `E${i}.${n}` }, token: true })
            else {
              await t.call('PATCH', path, {
                body: {
                  title: `M${i}.${n}`,
                  start_date: '2026-06-15 08:00:00',
                  end_date: '2026-06-15 09:00:00',
                },
                token: true,
              })
            }
          }
        }
        const listed: string[] = []
        for (let page = 1; ; page++) {
          const res = await t.get(`/events?${query}&per_page=50&page=${page}`)
          if (res.status === 404) break
          for (const e of res.body.events) {
            listed.push(`${e.utc_start_date.replace(' ', 'T')}.000Z ${e.title}`)
          }
          if (!res.body.next_rest_url) break
        }
        const res = await t.handler(new Request(`${BASE}/events?${query}&format=ics`))
        const feed = await res.text()
        const expanded = expandedFeed(feed, from, to)
        const missing = listed.filter((l) => !expanded.includes(l))
        const extra = expanded.filter((l) => !listed.includes(l))
        expect({ missing, extra }, feed).toEqual({ missing: [], extra: [] })
        expect(expanded).toEqual(listed.sort())
      }),
      { numRuns: name === 'pglite' ? 12 : 20, seed },
    )
  }, 300_000)
})

export { ids }
