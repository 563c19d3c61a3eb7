import type { IpVersion } from '@kcore/engine'
import { isAsn } from './asn.js'
import { assertCalendarDate } from './calendar-date.js'
import { InvalidQueryError } from './errors.js'
import type { DateRange } from './kcore-store-types.js'

// The store's entry points check their arguments here and answer with its own typed error
// (`InvalidQueryError`, code 'invalid_query'), so callers handle them with every other
// `KcoreStoreError` instead of meeting a bare RangeError.

/** Throws an `InvalidQueryError` unless `value` is `'ipv4'` or `'ipv6'`. */
export function assertIpVersion(value: unknown): asserts value is IpVersion {
  if (value !== 'ipv4' && value !== 'ipv6')
    throw new InvalidQueryError('ipVersion', `must be 'ipv4' or 'ipv6', got ${String(value)}`)
}

/** Throws an `InvalidQueryError` unless every item is an integer AS number 0..4294967295. */
export function assertAsns(asns: number[]): void {
  if (!Array.isArray(asns)) throw new InvalidQueryError('asns', 'must be an array of AS numbers')
  for (const asn of asns)
    if (!isAsn(asn))
      throw new InvalidQueryError('asns', `must be integers 0..4294967295, got ${String(asn)}`)
}

/** Throws an `InvalidQueryError` unless the given ends are real dates and start <= end. */
export function assertDateRange(range: DateRange | undefined): void {
  if (!range) return
  if (range.start !== undefined) assertCalendarDate(range.start, 'start date')
  if (range.end !== undefined) assertCalendarDate(range.end, 'end date')
  if (range.start !== undefined && range.end !== undefined && range.start > range.end)
    throw new InvalidQueryError('start date', `${range.start} is after end date ${range.end}`)
}
