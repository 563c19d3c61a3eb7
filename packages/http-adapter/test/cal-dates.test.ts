import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalHarness, ids, openCal } from './cal-harness.js'

// Issue 10, defects 1 and 2, through the handler. The pinned clock is 2026-03-01 15:00 UTC.
describe.each(testDatabases())('calendar dates on $name', ({ open }) => {
  let t: CalHarness
  beforeAll(async () => {
    t = await openCal(open)
  })
  afterAll(() => t?.close())

  const lists = [
    '/events',
    '/events?search=p',
    '/events?start_date=2026-01-01&end_date=2030-01-01',
    '/events?ends_after=2026-03-01',
    '/events?start_date=1000-01-01&end_date=9999-12-31',
  ]

  it('defect 1: an event lasting thousands of years never takes a list down', async () => {
    const long = await t.create('/events', {
      title: 'p long',
      start_date: '2027-01-01 00:00:00',
      end_date: '9999-12-31 23:59:59',
    })
    const longest = await t.create('/events', {
      title: 'p longest',
      start_date: '1000-01-01 00:00:00',
      end_date: '9999-12-31 23:59:59',
      timezone: 'Pacific/Kiritimati',
    })
    for (const path of lists) {
      const res = await t.get(path)
      expect(res.status, path).toBe(200)
      expect(ids(res), path).toEqual(expect.arrayContaining([long.body.id, longest.body.id]))
    }
    // Trashed or hidden, it is still stored and still must not break anything.
    await t.call('PATCH', `/events/${long.body.id}`, {
      body: { hide_from_listings: true },
      token: true,
    })
    await t.call('DELETE', `/events/${longest.body.id}`, { token: true })
    for (const path of lists) expect((await t.get(path)).status, path).toBe(200)
  })

  it('defect 2: years below 1000 are refused by name, never shifted by 1900', async () => {
    for (const [field, value] of [
      ['start_date', '0050-01-01 10:00:00'],
      ['start_date', '0999-12-31 23:59:59'],
      ['end_date', '0100-01-01 00:00:00'],
    ] as const) {
      const body = { title: 'early', start_date: '0001-01-01 00:00:00', end_date: '2026-01-01' }
      const res = await t.call('POST', '/events', {
        body: { ...body, start_date: '1000-01-01', [field]: value },
        token: true,
      })
      expect(res.status, value).toBe(400)
      expect(res.body.code).toBe('rest_invalid_param')
      expect(Object.keys(res.body.data.params)).toEqual([field])
    }
    for (const query of [
      'starts_before=0050-01-01',
      'start_date=0999-12-31',
      'ends_after=10000-01-01',
    ]) {
      const res = await t.get(`/events?${query}`)
      expect(res.status, query).toBe(400)
      expect(Object.keys(res.body.data.params)).toEqual([query.split('=')[0]])
    }
  })

  it('defect 2: early dates round-trip to the second in zones with LMT offsets', async () => {
    for (const [timezone, start] of [
      ['America/Los_Angeles', '1000-01-01 00:00:00'],
      ['America/Los_Angeles', '1883-11-18 11:59:59'],
      // LMT +0:17:30: the earliest wall time whose UTC instant is in range (issue 26 item 8).
      ['Europe/Amsterdam', '1000-01-01 00:17:30'],
      ['Asia/Kolkata', '1899-12-31 23:59:59'],
      ['Pacific/Kiritimati', '1000-01-01 00:00:00'],
    ] as const) {
      const made = await t.create('/events', {
        title: 'lmt',
        start_date: start,
        end_date: start,
        timezone,
      })
      const read = await t.get(`/events/${made.body.id}`)
      expect(read.body.start_date, `${timezone} ${start}`).toBe(start)
      expect(read.body.end_date, `${timezone} ${start}`).toBe(start)
    }
  })

  it('the edges of the range are accepted in every zone, one second past is not', async () => {
    // Both the wall time and its UTC instant lie in range (issue 26 item 8): in Los Angeles
    // (UTC-8 in December) the last accepted second is 15:59:59.
    const made = await t.create('/events', {
      title: 'edge',
      start_date: '1000-01-01 00:00:00',
      end_date: '9999-12-31 15:59:59',
      timezone: 'America/Los_Angeles',
    })
    expect(made.body).toMatchObject({
      start_date: '1000-01-01 00:00:00',
      end_date: '9999-12-31 15:59:59',
      utc_end_date: '9999-12-31 23:59:59',
    })
    const late = await t.call('POST', '/events', {
      body: {
        title: 'x',
        start_date: '2000-01-01',
        end_date: '9999-12-31 16:00:00',
        timezone: 'America/Los_Angeles',
      },
      token: true,
    })
    expect(late.status).toBe(400)
    expect(Object.keys(late.body.data.params)).toEqual(['end_date'])
    const past = await t.call('POST', '/events', {
      body: { title: 'x', start_date: '2000-01-01', end_date: '9999-12-31 23:59:59-12:00' },
      token: true,
    })
    // 23:59:59 at UTC-12 is 10000-01-01 11:59:59 in UTC, the zone it is read in.
    expect(past.status).toBe(400)
    expect(Object.keys(past.body.data.params)).toEqual(['end_date'])
  })

  it('issue 17: relative bounds snap to 23:59:59 of their day; Unix seconds are read as instants', async () => {
    const on = async (start: string) =>
      (await t.create('/events', { title: 'snap', start_date: start, end_date: start })).body.id
    const early = await on('1987-03-10 00:00:01')
    const late = await on('1987-03-10 23:59:59')
    const next = await on('1987-03-11 00:00:00')
    const window = 'ends_before=1987-03-12'
    // starts_after=D means "starts on D+1 or later" (23:59:59 of D, exclusive).
    expect(ids(await t.get(`/events?starts_after=1987-03-10&${window}`))).toEqual([next])
    // starts_before=D is before 23:59:59 of D (exclusive): `late` starts at that second.
    expect(ids(await t.get('/events?starts_after=1987-03-09&starts_before=1987-03-10'))).toEqual([
      early,
    ])
    expect(ids(await t.get(`/events?ends_after=1987-03-09&${window}`))).toEqual([early, late, next])
    expect(
      ids(await t.get(`/events?starts_after=1987-03-10 00:00:00&strict_dates=1&${window}`)),
    ).toEqual([early, late, next])
    // 542386800 = 1987-03-10 15:00:00 UTC: strict, it is that instant; otherwise its day.
    expect(ids(await t.get(`/events?starts_after=542386800&strict_dates=1&${window}`))).toEqual([
      late,
      next,
    ])
    expect(ids(await t.get(`/events?starts_after=542386800&${window}`))).toEqual([next])
    // A record field takes it too, as the instant it names.
    const made = await t.create('/events', {
      title: 'ts',
      start_date: '542386800',
      end_date: '542390400',
      timezone: 'Europe/Amsterdam',
    })
    expect(made.body).toMatchObject({
      start_date: '1987-03-10 16:00:00',
      utc_start_date: '1987-03-10 15:00:00',
      utc_end_date: '1987-03-10 16:00:00',
    })
    // Out of range as a timestamp is refused by name, like any other date.
    for (const ts of ['-30610224001', '253402300800']) {
      const res = await t.get(`/events?starts_after=${ts}`)
      expect(res.status, ts).toBe(400)
      expect(Object.keys(res.body.data.params)).toEqual(['starts_after'])
    }
  })
})
