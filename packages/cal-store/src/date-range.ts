import { CalValidationError } from './errors.js'
import { type LocalDateTime, toLocalDateTime } from './time-zone.js'

/**
 * Years a calendar date may have, in the zone it is read in: the range of the original's MySQL
 * DATETIME columns (1000-01-01 00:00:00 … 9999-12-31 23:59:59).
 */
export const MIN_YEAR = 1000
export const MAX_YEAR = 9999

/**
 * An instant before every one the store accepts: 1000-01-01 00:00:00 at the largest offset
 * any zone ever had (LMT of Asia/Manila, +15:56) is later than this. Bounds computed from
 * stored durations that fall before it are useless and are dropped, never sent to SQL.
 */
export const BEFORE_ANY_DATE = new Date('0999-12-30T00:00:00Z')

/** True when a wall time lies in years {@link MIN_YEAR}..{@link MAX_YEAR}. */
export const isWallTimeInRange = (w: LocalDateTime): boolean =>
  w.year >= MIN_YEAR && w.year <= MAX_YEAR

/** The message a date outside the range is refused with. */
export const DATE_RANGE_MESSAGE = `must lie between ${MIN_YEAR}-01-01 00:00:00 and ${MAX_YEAR}-12-31 23:59:59, in its time zone and in UTC`

/**
 * True when `instant` lies in the range both as read in `zone` and in UTC: `9999-12-31
 * 23:59:59` in `Etc/GMT+12` is year 10000 in UTC, which the `utc_*` fields could not show.
 */
export const isDateInRange = (instant: Date, zone: string): boolean =>
  isWallTimeInRange(toLocalDateTime(instant, zone)) &&
  isWallTimeInRange(toLocalDateTime(instant, 'UTC'))

/** Throws `CalValidationError` on `field` unless {@link isDateInRange}. */
export function assertDateInRange(instant: Date, zone: string, field: string): void {
  if (!isDateInRange(instant, zone)) throw new CalValidationError(field, DATE_RANGE_MESSAGE)
}
