import { CalValidationError } from './errors.js'

/** Longest accepted name of a venue, organizer or term (they are indexed case-insensitively). */
export const MAX_NAME_LENGTH = 500

/**
 * Throws `CalValidationError` naming the field when any string inside `value` (walked through
 * arrays and plain objects) holds a NUL character, which PostgreSQL text cannot store.
 */
export function rejectNul(value: unknown, field = 'input'): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000'))
      throw new CalValidationError(field, 'must not contain NUL characters')
  } else if (Array.isArray(value)) {
    for (const item of value) rejectNul(item, field)
  } else if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    for (const [key, item] of Object.entries(value))
      rejectNul(item, field === 'input' ? key : field)
  }
}

/** A trimmed, non-empty name of at most {@link MAX_NAME_LENGTH} characters. */
export function requireName(field: string, name: unknown, what: string): string {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new CalValidationError(field, `${what} needs a name`)
  }
  const trimmed = name.trim()
  if (trimmed.length > MAX_NAME_LENGTH) {
    throw new CalValidationError(field, `must be at most ${MAX_NAME_LENGTH} characters`)
  }
  return trimmed
}

/** An author id: an integer 0 … 2³¹-1 (0 = nobody). */
export function checkAuthor(author: number | null | undefined): number {
  if (author === undefined || author === null) return 0
  if (!Number.isInteger(author) || author < 0 || author > 2 ** 31 - 1) {
    throw new CalValidationError('author', 'must be a non-negative integer id')
  }
  return author
}

/** Throws `CalValidationError` on `field` unless `value` is a valid `Date` (or absent). */
export function checkDate(value: Date | undefined, field: string): void {
  if (value !== undefined && !(value instanceof Date && Number.isFinite(value.getTime()))) {
    throw new CalValidationError(field, 'must be a valid date')
  }
}

/** Throws `CalValidationError` on `field` unless `value` is a finite number (or absent). */
export function checkNumber(value: number | undefined, field: string): void {
  if (value !== undefined && !Number.isFinite(value)) {
    throw new CalValidationError(field, 'must be a finite number')
  }
}
