import { describe, expect, it } from 'vitest'
import {
  formatLocalDateTime,
  fromLocalDateTime,
  toLocalDateTime,
  zoneOffsetMinutes,
} from './time-zone.js'

const local = (s: string) => {
  const [d, t] = s.split(' ') as [string, string]
  const [year, month, day] = d.split('-').map(Number) as [number, number, number]
  const [hour, minute, second] = t.split(':').map(Number) as [number, number, number]
  return { year, month, day, hour, minute, second }
}

describe('time zones', () => {
  it('converts wall-clock times in New York on both sides of DST', () => {
    expect(fromLocalDateTime(local('2026-03-07 19:00:00'), 'America/New_York').toISOString()).toBe(
      '2026-03-08T00:00:00.000Z',
    )
    expect(fromLocalDateTime(local('2026-03-09 19:00:00'), 'America/New_York').toISOString()).toBe(
      '2026-03-09T23:00:00.000Z',
    )
    expect(zoneOffsetMinutes(new Date('2026-01-15T12:00:00Z'), 'America/New_York')).toBe(-300)
    expect(zoneOffsetMinutes(new Date('2026-07-15T12:00:00Z'), 'America/New_York')).toBe(-240)
  })

  it('refuses a skipped wall time and takes the first of a repeated one', () => {
    // 2026-03-08 02:30 does not exist in New York (02:00 → 03:00): storing 03:30 would change
    // what was written (issue 26 item 7).
    expect(() =>
      fromLocalDateTime(local('2026-03-08 02:30:00'), 'America/New_York', 'start_date'),
    ).toThrow(/start_date: 2026-03-08 02:30:00 does not exist in America\/New_York/)
    // Samoa skipped the whole of 2011-12-30.
    expect(() => fromLocalDateTime(local('2011-12-30 12:00:00'), 'Pacific/Apia')).toThrow(
      /does not exist/,
    )
    // 2026-11-01 01:30 happens twice; the first is EDT (UTC-4).
    const twice = fromLocalDateTime(local('2026-11-01 01:30:00'), 'America/New_York')
    expect(twice.toISOString()).toBe('2026-11-01T05:30:00.000Z')
  })

  it('handles fixed offsets', () => {
    const t = new Date('2026-06-01T12:00:00Z')
    expect(formatLocalDateTime(t, 'UTC-3:30')).toBe('2026-06-01 08:30:00')
    expect(formatLocalDateTime(t, 'UTC+2')).toBe('2026-06-01 14:00:00')
    expect(fromLocalDateTime(toLocalDateTime(t, 'UTC+5:45'), 'UTC+5:45')).toEqual(t)
  })

  it('round-trips every hour of a year in several zones', () => {
    for (const zone of ['America/New_York', 'Europe/Amsterdam', 'Australia/Lord_Howe', 'UTC']) {
      for (let h = 0; h < 365 * 24; h += 7) {
        const t = new Date(Date.UTC(2026, 0, 1) + h * 3_600_000)
        const back = fromLocalDateTime(toLocalDateTime(t, zone), zone)
        // A repeated wall time maps to its first occurrence, so only those may differ.
        if (back.getTime() !== t.getTime()) {
          expect(formatLocalDateTime(back, zone)).toBe(formatLocalDateTime(t, zone))
          expect(back.getTime()).toBeLessThan(t.getTime())
        }
      }
    }
  })
})

describe('toLocalDateTime memo', () => {
  it('answers a copy: changing one answer never changes the next', () => {
    const instant = new Date('2026-03-29T01:30:00Z')
    const first = toLocalDateTime(instant, 'Europe/Amsterdam')
    expect(first).toEqual({ year: 2026, month: 3, day: 29, hour: 3, minute: 30, second: 0 })
    first.hour = 99
    expect(toLocalDateTime(instant, 'Europe/Amsterdam').hour).toBe(3)
    // Same instant, other zone: its own entry.
    expect(toLocalDateTime(instant, 'America/New_York').hour).toBe(21)
  })
})
