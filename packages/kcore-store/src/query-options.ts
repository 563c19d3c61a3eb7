import { InvalidQueryError } from './errors.js'

/** Largest value an `integer` column or parameter holds. */
export const MAX_INT4 = 2_147_483_647

/** Most ASes a `top` core and most risers/fallers a movers answer may ask for. */
export const MAX_RESEARCH_LIMIT = 10_000

/**
 * `value` when it is an integer in `min..max`, else {@link InvalidQueryError} naming `field`.
 * Checked before any SQL so no value ever reaches the database out of its column's range.
 */
export function integerOption(field: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new InvalidQueryError(field, `must be an integer ${min}..${max}, got ${String(value)}`)
  return value
}
