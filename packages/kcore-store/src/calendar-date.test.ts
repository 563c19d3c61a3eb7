import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { assertCalendarDate, isCalendarDate } from './calendar-date.js'

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** Independent oracle: JS `Date` with `setUTCFullYear` is proleptic Gregorian for every year. */
function oracle(year: number, month: number, day: number): boolean {
  if (year < 1 || year > 9999) return false
  const d = new Date(0)
  d.setUTCFullYear(year, month - 1, day)
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day
}

describe('isCalendarDate', () => {
  it('accepts real dates, leap days included', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true)
    expect(isCalendarDate('1998-01-01')).toBe(true)
  })
  it('reads years below 100 as themselves (Date.UTC would make 0050 into 1950)', () => {
    for (const good of ['0001-01-01', '0050-01-01', '0099-12-31', '0004-02-29', '9999-12-31'])
      expect(isCalendarDate(good), good).toBe(true)
    // 0100 is not a leap year; 1900 (what Date.UTC makes of 0000) is not either, 0000 is out.
    for (const bad of ['0000-01-01', '0100-02-29', '0001-02-29', '10000-01-01'])
      expect(isCalendarDate(bad), bad).toBe(false)
  })
  it('rejects impossible dates and other shapes', () => {
    for (const bad of ['2023-02-29', '2024-13-01', '2024-04-31', '20240101', '2024-1-01', ''])
      expect(isCalendarDate(bad), bad).toBe(false)
  })
  it('agrees with the proleptic Gregorian calendar for every year 0000..9999', () => {
    const year = fc.oneof(
      fc.constantFrom(0, 1, 4, 99, 100, 400, 1582, 1900, 2000, 2100, 9996, 9999),
      fc.integer({ min: 0, max: 9999 }),
    )
    fc.assert(
      fc.property(
        year,
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        (y, m, d) => {
          const text = `${pad(y, 4)}-${pad(m)}-${pad(d)}`
          expect(isCalendarDate(text), text).toBe(oracle(y, m, d))
        },
      ),
      { numRuns: 5000 },
    )
  })
  it('names the value in the error', () => {
    expect(() => assertCalendarDate('2024-02-30', 'date')).toThrow(/date must be .*2024-02-30/)
  })
})
