import { describe, expect, it } from 'vitest'
import { assertCalendarDate, isCalendarDate } from './calendar-date.js'

describe('isCalendarDate', () => {
  it('accepts real dates, leap days included', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true)
    expect(isCalendarDate('1998-01-01')).toBe(true)
  })
  it('rejects impossible dates and other shapes', () => {
    for (const bad of ['2023-02-29', '2024-13-01', '2024-04-31', '20240101', '2024-1-01', ''])
      expect(isCalendarDate(bad), bad).toBe(false)
  })
  it('names the value in the error', () => {
    expect(() => assertCalendarDate('2024-02-30', 'date')).toThrow(/date must be .*2024-02-30/)
  })
})
