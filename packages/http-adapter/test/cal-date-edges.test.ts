import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BASE, type CalHarness, openCal } from './cal-harness.js'

// Issue 26 items 7, 8 and 9: a wall time the zone skipped is a 400 saying so (never moved), an
// ambiguous one is the earlier instant, the UTC instant lies in 1000…9999 too, and the
// iCalendar feed carries no control character RFC 5545 TEXT excludes.
describe.each(testDatabases())('calendar date and text edges on $name', ({ open }) => {
  let t: CalHarness
  beforeAll(async () => {
    t = await openCal(open)
  })
  afterAll(() => t?.close())

  const write = (body: Record<string, unknown>) =>
    t.call('POST', '/events', { body: { title: 'Edge', ...body }, token: true })

  it('refuses a wall time skipped by a DST change, naming the field', async () => {
    const cases = [
      {
        timezone: 'America/New_York',
        start_date: '2026-03-08 02:30:00',
        end_date: '2026-03-08 03:30:00',
        field: 'start_date',
      },
      {
        timezone: 'America/New_York',
        start_date: '2026-03-08 01:00:00',
        end_date: '2026-03-08 02:00:00',
        field: 'end_date',
      },
      // Samoa skipped the whole of 30 December 2011 (it crossed the date line).
      {
        timezone: 'Pacific/Apia',
        start_date: '2011-12-30 10:00:00',
        end_date: '2011-12-31 10:00:00',
        field: 'start_date',
      },
    ]
    for (const { field, ...body } of cases) {
      const res = await write(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(Object.keys(res.body.data.params)).toEqual([field])
      expect(res.body.data.params[field]).toMatch(/does not exist/)
    }
    const created = (
      await t.create('/events', {
        title: 'Before',
        timezone: 'America/New_York',
        start_date: '2026-03-07 02:30:00',
        end_date: '2026-03-07 03:30:00',
      })
    ).body
    const moved = await t.call('PATCH', `/events/${created.id}`, {
      body: { start_date: '2026-03-08 02:30:00', end_date: '2026-03-08 04:00:00' },
      token: true,
    })
    expect(moved.status).toBe(400)
    expect(moved.body.data.params.start_date).toMatch(/does not exist/)
    const filter = await t.get('/events?strict_dates=true&start_date=2026-03-08%2002:30:00')
    expect(filter.status).toBe(200)
  })

  it('reads a wall time that occurs twice as the earlier instant', async () => {
    const res = await t.create('/events', {
      title: 'Fall back',
      timezone: 'America/New_York',
      start_date: '2026-11-01 01:30:00',
      end_date: '2026-11-01 01:45:00',
    })
    expect(res.body.utc_start_date).toBe('2026-11-01 05:30:00')
    expect(res.body.utc_end_date).toBe('2026-11-01 05:45:00')
    expect(res.body.start_date).toBe('2026-11-01 01:30:00')
  })

  it('keeps all-day events and day filters whole on a day whose midnight was skipped', async () => {
    // Havana springs forward at midnight: 2026-03-08 starts at 01:00.
    const res = await t.create('/events', {
      title: 'Havana day',
      timezone: 'America/Havana',
      all_day: true,
      start_date: '2026-03-08',
      end_date: '2026-03-08',
    })
    expect(res.body.start_date).toBe('2026-03-08 01:00:00')
    expect(res.body.end_date).toBe('2026-03-08 23:59:59')
  })

  it('refuses a date whose UTC instant falls in year 10000 or before year 1000', async () => {
    const late = await write({
      timezone: 'Etc/GMT+12',
      start_date: '9999-12-31 23:59:59',
      end_date: '9999-12-31 23:59:59',
    })
    expect(late.status).toBe(400)
    expect(Object.keys(late.body.data.params)).toContain('start_date')
    const early = await write({
      timezone: 'Etc/GMT-14',
      start_date: '1000-01-01 00:00:00',
      end_date: '1000-01-01 01:00:00',
    })
    expect(early.status).toBe(400)
    expect(Object.keys(early.body.data.params)).toContain('start_date')
    const edge = await t.create('/events', {
      title: 'Last second',
      timezone: 'Etc/GMT-12',
      start_date: '9999-12-31 23:59:59',
      end_date: '9999-12-31 23:59:59',
    })
    expect(edge.body.utc_start_date).toBe('9999-12-31 11:59:59')
  })

  it('writes no control character into the iCalendar feed', async () => {
    const title = 'Tab\there, vertical\u000btab, bell\u0007, escape\u001b, delete\u007f'
    const ev = (
      await t.create('/events', {
        title,
        description: 'line\u000cfeed\u0001',
        start_date: '2026-03-05 10:00:00',
        end_date: '2026-03-05 11:00:00',
        categories: ['cat\u0002egory'],
      })
    ).body
    const res = await t.handler(new Request(`${BASE}/events?format=ics&include=${ev.id}`))
    const text = await res.text()
    // RFC 5545 3.3.11: TEXT is TSAFE-CHAR (WSP, printable, non-ASCII) and escapes; CONTROL is
    // %x00-08 / %x0A-1F / %x7F. Lines end in CRLF; HTAB stays.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f]/)
    expect(text).toContain('SUMMARY:Tab\there\\, verticaltab\\, bell\\, escape\\, delete')
  })
})
