import type { IpVersion } from '@kcore/engine'
import { isAsn } from './asn.js'
import { assertCalendarDate } from './calendar-date.js'
import type { DateRange } from './kcore-store-types.js'

/** Throws a `RangeError` unless `value` is `'ipv4'` or `'ipv6'`. */
export function assertIpVersion(value: unknown): asserts value is IpVersion {
  if (value !== 'ipv4' && value !== 'ipv6')
    throw new RangeError(`ipVersion must be 'ipv4' or 'ipv6', got ${String(value)}`)
}

/** Throws a `RangeError` unless every item is an integer AS number 0..4294967295. */
export function assertAsns(asns: number[]): void {
  if (!Array.isArray(asns)) throw new RangeError('asns must be an array of AS numbers')
  for (const asn of asns) if (!isAsn(asn)) throw new RangeError(`invalid ASN ${String(asn)}`)
}

/** Throws a `RangeError` unless the given ends are real dates and start <= end. */
export function assertDateRange(range: DateRange | undefined): void {
  if (!range) return
  if (range.start !== undefined) assertCalendarDate(range.start, 'start date')
  if (range.end !== undefined) assertCalendarDate(range.end, 'end date')
  if (range.start !== undefined && range.end !== undefined && range.start > range.end)
    throw new RangeError(`start date ${range.start} is after end date ${range.end}`)
}
