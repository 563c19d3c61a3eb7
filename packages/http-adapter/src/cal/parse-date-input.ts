import {
  addDays,
  DATE_RANGE_MESSAGE,
  fromLocalDateTime,
  isDateInRange,
  isRealWallTime,
  type LocalDateTime,
  startOfDayInstant,
  toLocalDateTime,
} from '@cal/store'
import { invalidParams } from './cal-error.js'

/** A date or date-time given by a client, resolved in a zone. */
export interface DateInput {
  /** The instant. */
  instant: Date
  /** Its wall time in the zone it was resolved in. */
  wall: LocalDateTime
  /** True when only a day was given (`2026-05-01`, `today`). */
  dateOnly: boolean
}

/** The date forms {@link parseDateInput} accepts, for schemas and documentation. */
export const DATE_INPUT_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i

/** A Unix timestamp in seconds, as the original accepts (`is_numeric` and integral). */
const UNIX_SECONDS = /^-?\d{1,15}$/

// A Map, not an object literal: client text must never reach Object.prototype (`__proto__`).
const RELATIVE_DAYS = new Map([
  ['yesterday', -1],
  ['today', 0],
  ['tomorrow', 1],
])

/**
 * Parses the date forms the API accepts: `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]` (or with `T`),
 * either optionally followed by `Z` or `±HH[:MM]` (then `zone` only shapes `wall`), a Unix
 * timestamp in whole seconds (all digits, optional minus: an instant, like a date-time with
 * `Z`), and the words `now`, `today`, `tomorrow`, `yesterday`. A wall time without an offset is
 * read in `zone`; a day alone is the instant that day starts. Returns `undefined` for anything
 * else, including impossible dates such as `2026-02-30`; a wall time the zone skipped (DST) is
 * a `CalValidationError` on `field`. The 1000…9999 range is {@link readDateInput}'s business:
 * it depends on the zone.
 */
export function parseDateInput(
  text: string,
  zone: string,
  now: Date,
  field = 'date',
): DateInput | undefined {
  const trimmed = text.trim()
  const word = trimmed.toLowerCase()
  if (word === 'now') return atInstant(new Date(Math.floor(now.getTime() / 1000) * 1000), zone)
  const shift = RELATIVE_DAYS.get(word)
  if (shift !== undefined) {
    const wall = { ...addDays(toLocalDateTime(now, zone), shift), hour: 0, minute: 0, second: 0 }
    return { instant: startOfDayInstant(wall, zone), wall, dateOnly: true }
  }
  if (UNIX_SECONDS.test(trimmed)) {
    const ms = Number(trimmed) * 1000
    // Past ±8.64e15 ms no instant exists; the range check refuses far less anyway.
    return Math.abs(ms) <= 8.64e15 ? atInstant(new Date(ms), zone) : undefined
  }
  const m = DATE_INPUT_PATTERN.exec(trimmed)
  if (!m) return undefined
  const given: LocalDateTime = {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4] ?? 0),
    minute: Number(m[5] ?? 0),
    second: Number(m[6] ?? 0),
  }
  if (!isRealWallTime(given)) return undefined
  const dateOnly = m[4] === undefined
  const offsetText = m[7]
  if (offsetText === undefined) {
    const instant = dateOnly
      ? startOfDayInstant(given, zone)
      : fromLocalDateTime(given, zone, field)
    return { instant, wall: given, dateOnly }
  }
  const offsetZone = offsetZoneOf(offsetText)
  if (offsetZone === undefined) return undefined
  return { ...atInstant(fromLocalDateTime(given, offsetZone), zone), dateOnly }
}

const atInstant = (instant: Date, zone: string): DateInput => ({
  instant,
  wall: toLocalDateTime(instant, zone),
  dateOnly: false,
})

/** Whether {@link parseDateInput} would accept the text (zone-independent). */
export const isDateInput = (text: string) => parseDateInput(text, 'UTC', new Date(0)) !== undefined

/**
 * {@link parseDateInput} for a request field: 400 naming `field` when the text is not a date,
 * names a wall time `zone` skipped, or lies outside 1000-01-01 00:00:00 … 9999-12-31 23:59:59
 * in `zone` or in UTC.
 */
export function readDateInput(text: string, zone: string, now: Date, field: string): DateInput {
  const parsed = parseDateInput(text, zone, now, field)
  if (!parsed) throw invalidParams({ [field]: 'must be a date-time such as 2026-05-01 19:30:00' })
  if (!isDateInRange(parsed.instant, zone)) throw invalidParams({ [field]: DATE_RANGE_MESSAGE })
  return parsed
}

/** `Z` / `±HH[:MM]` as a fixed zone `UTC±H:MM`, hours ≤ 14 and minutes ≤ 59. */
function offsetZoneOf(text: string): string | undefined {
  if (text.toUpperCase() === 'Z') return 'UTC'
  const digits = text.slice(1).replace(':', '')
  const hours = Number(digits.slice(0, 2))
  const minutes = Number(digits.slice(2) || 0)
  if (hours > 14 || minutes > 59) return undefined
  return `UTC${text[0]}${hours}:${String(minutes).padStart(2, '0')}`
}
