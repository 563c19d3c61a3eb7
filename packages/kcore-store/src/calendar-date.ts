import { InvalidQueryError } from './errors.js'
/** `YYYY-MM-DD`, years 0001..9999. */
export const CALENDAR_DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/

/** Leap years of the proleptic Gregorian calendar (1900 is not one, 2000 is). */
const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/**
 * True for a real proleptic Gregorian date written `YYYY-MM-DD` from 0001-01-01 to 9999-12-31
 * (no 2023-02-30, no year 0000). Plain arithmetic on purpose: `Date.UTC` reads years 0..99 as
 * 1900..1999. The one k-core date rule; the HTTP schemas and the store both call it.
 */
export function isCalendarDate(value: string): boolean {
  const match = CALENDAR_DATE_PATTERN.exec(value)
  if (!match) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  if (year < 1 || month < 1 || month > 12 || day < 1) return false
  const last = month === 2 && isLeapYear(year) ? 29 : (MONTH_DAYS[month - 1] as number)
  return day <= last
}

/** Throws an `InvalidQueryError` naming `what` unless `value` is a real `YYYY-MM-DD` date. */
export function assertCalendarDate(value: string, what: string): void {
  if (typeof value !== 'string' || !isCalendarDate(value))
    throw new InvalidQueryError(
      what,
      `must be a real date written YYYY-MM-DD, got ${String(value)}`,
    )
}
