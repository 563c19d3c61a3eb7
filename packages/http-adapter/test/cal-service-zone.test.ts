import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CalHarness, ids, openCal } from './cal-harness.js'

// The pinned clock is 2026-03-01 15:00 UTC = 2026-03-02 00:00 in Tokyo: "today" already
// started there, which moves the default window and the day widening of bounds.
describe.each(testDatabases())('calendar service time zone on $name', ({ open }) => {
  let t: CalHarness
  const ev: Record<string, number> = {}

  beforeAll(async () => {
    t = await openCal(open, { timezone: 'Asia/Tokyo' })
    const make = async (key: string, start: string, end: string, timezone?: string) => {
      ev[key] = (
        await t.create('/events', { title: key, start_date: start, end_date: end, timezone })
      ).body.id
    }
    // Ends 23:00 on 1 March in Tokyo: before "today" there, although still 1 March in UTC.
    await make('yesterday', '2026-03-01 13:00:00', '2026-03-01 14:00:00', 'UTC')
    await make('today', '2026-03-02 09:00:00', '2026-03-02 10:00:00')
    // 5 March 23:30 in Tokyo is 14:30 UTC the same day.
    await make('late', '2026-03-05 23:30:00', '2026-03-05 23:45:00')
  })
  afterAll(() => t?.close())

  it('defaults event zones and renders date/modified in the service zone', async () => {
    const { body } = await t.get(`/events/${ev.today}`)
    expect(body).toMatchObject({
      timezone: 'Asia/Tokyo',
      start_date: '2026-03-02 09:00:00',
      utc_start_date: '2026-03-02 00:00:00',
    })
    const local = Date.parse(`${body.date.replace(' ', 'T')}Z`)
    const utc = Date.parse(`${body.date_utc.replace(' ', 'T')}Z`)
    expect(local - utc).toBe(9 * 3_600_000)
  })

  it('starts the default window at today 00:00:00 in the service zone', async () => {
    expect(ids(await t.get('/events'))).toEqual([ev.today, ev.late])
  })

  it('widens date bounds to whole days in the service zone', async () => {
    expect(ids(await t.get('/events?start_date=2026-03-05&end_date=2026-03-05'))).toEqual([ev.late])
    expect(ids(await t.get('/events?starts_after=2026-03-05 23:00:00&strict_dates=1'))).toEqual([
      ev.late,
    ])
    expect(ids(await t.get('/events?start_date=2026-03-01&end_date=2026-03-01'))).toEqual([
      ev.yesterday,
    ])
  })
})
