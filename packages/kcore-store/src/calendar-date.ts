const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/

/** True for a real calendar date written `YYYY-MM-DD` (no 2023-02-30). */
export function isCalendarDate(value: string): boolean {
  const match = DATE_PATTERN.exec(value)
  if (!match) return false
  const [, y, m, d] = match.map(Number) as [number, number, number, number]
  const date = new Date(Date.UTC(y, m - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
}

/** Throws a `RangeError` naming `what` unless `value` is a real `YYYY-MM-DD` date. */
export function assertCalendarDate(value: string, what: string): void {
  if (typeof value !== 'string' || !isCalendarDate(value))
    throw new RangeError(`${what} must be a real date written YYYY-MM-DD, got ${String(value)}`)
}
