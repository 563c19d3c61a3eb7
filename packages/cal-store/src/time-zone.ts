import { canonicalTimeZone, temporalZoneId } from '@cal/recurrence'
import { LRUCache } from 'lru-cache'
import { Temporal } from 'temporal-polyfill'
import { CalValidationError } from './errors.js'

// Every zone computation goes through Temporal (temporal-polyfill): IANA rules from the
// runtime's tz data, the proleptic ISO calendar for every year, offsets to the second (LMT
// eras have seconds) and the standard gap/overlap disambiguation. No hand-written offsets.

/**
 * The store's zone check: the one spelling of `zone` (`europe/berlin` → `Europe/Berlin`, see
 * `canonicalTimeZone`), what every write stores; `CalValidationError` on `field` for a text
 * that is no zone (IANA names the runtime knows, `UTC±H[:MM]` up to 14 hours).
 */
export function checkTimeZone(zone: string, field = 'timezone'): string {
  const canonical = canonicalTimeZone(zone)
  if (canonical === undefined) throw new CalValidationError(field, `unknown time zone ${zone}`)
  return canonical
}

/** Throws `CalValidationError` on `field` unless `zone` is one ({@link checkTimeZone}). */
export function assertTimeZone(zone: string, field = 'timezone'): void {
  checkTimeZone(zone, field)
}

/** Wall-clock parts of a local date-time (month 1-12). */
export interface LocalDateTime {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
}

/** The zoned date-time of `instant` (whole seconds of it) in `zone`. */
export function zonedDateTime(instant: Date, zone: string): Temporal.ZonedDateTime {
  const ms = Math.floor(instant.getTime() / 1000) * 1000
  return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(temporalZoneId(zone))
}

/** The wall-clock time of `instant` in `zone` (IANA or `UTC±H[:MM]`), to the second. */
export function toLocalDateTime(instant: Date, zone: string): LocalDateTime {
  const key = `${zone}\u0000${instant.getTime()}`
  let local = wallTimes.get(key)
  if (!local) {
    const z = zonedDateTime(instant, zone)
    local = {
      year: z.year,
      month: z.month,
      day: z.day,
      hour: z.hour,
      minute: z.minute,
      second: z.second,
    }
    wallTimes.set(key, local)
  }
  // A copy: callers may change theirs.
  return { ...local }
}

/**
 * Wall times already computed, by zone and instant: a pure function of both (the zone rules do
 * not change while the process runs), and Temporal's polyfill costs tens of microseconds per
 * call, which every rendered event pays several times (a list of 50 events: about 300 calls).
 */
const wallTimes = new LRUCache<string, LocalDateTime>({ max: 20_000 })

/** Offset of `zone` from UTC at `instant`, in whole minutes east (New York in winter: -300). */
export function zoneOffsetMinutes(instant: Date, zone: string): number {
  return Math.round(zonedDateTime(instant, zone).offsetNanoseconds / 60e9)
}

/**
 * True when `local` is a real wall time (no 2026-02-30, no 24:00), in the proleptic Gregorian
 * calendar for every year.
 */
export function isRealWallTime(local: LocalDateTime): boolean {
  if (
    ![local.year, local.month, local.day, local.hour, local.minute, local.second].every(
      Number.isInteger,
    )
  )
    return false
  try {
    Temporal.PlainDateTime.from(local, { overflow: 'reject' })
    return true
  } catch {
    return false
  }
}

/**
 * The UTC instant at which clocks in `zone` show `local`: the one place wall times become
 * instants. A repeated wall time (fall back) is its earlier instant; one the zone skipped (02:30
 * on a spring-forward day in New York, any time on Samoa's 2011-12-30) is a
 * `CalValidationError` on `field` saying so: moving it would store another time than written.
 */
export function fromLocalDateTime(local: LocalDateTime, zone: string, field = 'date'): Date {
  const wall = Temporal.PlainDateTime.from(local, { overflow: 'reject' })
  // 'earlier' picks the first of two instants; in a gap it lands before the gap, on another
  // wall time, which is how a skipped time is told apart ('reject' refuses overlaps too).
  const z = wall.toZonedDateTime(temporalZoneId(zone), { disambiguation: 'earlier' })
  if (!z.toPlainDateTime().equals(wall)) {
    throw new CalValidationError(
      field,
      `${formatWallTime(local)} does not exist in ${zone} (its clocks skipped that time)`,
    )
  }
  return new Date(z.epochMilliseconds)
}

/**
 * The first instant of the day `local` falls on, in `zone`: midnight, or the first wall time
 * after it when a clock change skipped midnight (Havana springs forward at 00:00).
 */
export function startOfDayInstant(local: LocalDateTime, zone: string): Date {
  const day = Temporal.PlainDate.from(local, { overflow: 'reject' })
  return new Date(day.toZonedDateTime(temporalZoneId(zone)).epochMilliseconds)
}

/**
 * The last second of the day `local` falls on, in `zone`: one second before the next day
 * starts (23:59:59, whatever clock change the day or its midnight holds).
 */
export function endOfDayInstant(local: LocalDateTime, zone: string): Date {
  const next = Temporal.PlainDate.from(local, { overflow: 'reject' }).add({ days: 1 })
  return new Date(next.toZonedDateTime(temporalZoneId(zone)).epochMilliseconds - 1000)
}

/** The same wall-clock time `days` calendar days later (earlier when negative). */
export function addDays(local: LocalDateTime, days: number): LocalDateTime {
  const d = Temporal.PlainDateTime.from(local, { overflow: 'reject' }).add({ days })
  return {
    year: d.year,
    month: d.month,
    day: d.day,
    hour: d.hour,
    minute: d.minute,
    second: d.second,
  }
}

/** `YYYY-MM-DD HH:MM:SS` of a wall time. */
export function formatWallTime(w: LocalDateTime): string {
  const p = (n: number, width = 2) => String(n).padStart(width, '0')
  return `${p(w.year, 4)}-${p(w.month)}-${p(w.day)} ${p(w.hour)}:${p(w.minute)}:${p(w.second)}`
}

/** `YYYY-MM-DD HH:MM:SS` of `instant` in `zone`. */
export function formatLocalDateTime(instant: Date, zone: string): string {
  return formatWallTime(toLocalDateTime(instant, zone))
}
