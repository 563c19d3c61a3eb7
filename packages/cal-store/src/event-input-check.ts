import { allDayBounds } from './all-day.js'
import { assertDateInRange } from './date-range.js'
import { CalValidationError } from './errors.js'
import { hashPassword } from './password.js'
import { checkTimeZone } from './time-zone.js'

export const TEXT_FIELDS = ['image', 'website'] as const

export function requireTitle(title: unknown): string {
  if (typeof title !== 'string' || title.trim() === '') {
    throw new CalValidationError('title', 'an event needs a title')
  }
  return title.trim()
}

export function checkParentId(parent: number | null | undefined): void {
  if (parent !== undefined && parent !== null && !Number.isInteger(parent)) {
    throw new CalValidationError('post_parent', 'must be an event id')
  }
}

export function requireDate(value: unknown, field: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new CalValidationError(field, 'must be a valid date')
  }
  return value
}

/** Start/end after the all-day rule, checked for order, and the zone as stored (canonical). */
export function eventTimes(
  start: Date,
  end: Date,
  timezone: string,
  allDay: boolean,
): { start: Date; end: Date; zone: string } {
  const zone = checkTimeZone(timezone)
  assertDateInRange(start, zone, 'start_date')
  assertDateInRange(end, zone, 'end_date')
  const times = allDay ? allDayBounds(start, end, zone) : { start, end }
  if (times.end.getTime() < times.start.getTime()) {
    throw new CalValidationError('end_date', 'the event ends before it starts')
  }
  return { ...times, zone }
}

/** Hashes a password field outside any transaction (scrypt is slow on purpose). */
export async function passwordHashOf(
  password: string | null | undefined,
): Promise<string | null | undefined> {
  if (password === undefined) return undefined
  return password === null || password === '' ? null : hashPassword(password)
}
