import { fromLocalDateTime, type LocalDateTime, toLocalDateTime } from '@cal/store'

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

const RELATIVE_DAYS: Record<string, number> = { yesterday: -1, today: 0, tomorrow: 1 }

/**
 * Parses the date forms the API accepts: `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]` (or with `T`),
 * either optionally followed by `Z` or `±HH[:MM]` (then `zone` only shapes `wall`), and the
 * words `now`, `today`, `tomorrow`, `yesterday`. A wall time without an offset is read in `zone`.
 * Returns `undefined` for anything else, including impossible dates such as `2026-02-30`.
 */
export function parseDateInput(text: string, zone: string, now: Date): DateInput | undefined {
  const trimmed = text.trim()
  const word = trimmed.toLowerCase()
  if (word === 'now') {
    const instant = new Date(Math.floor(now.getTime() / 1000) * 1000)
    return { instant, wall: toLocalDateTime(instant, zone), dateOnly: false }
  }
  const shift = RELATIVE_DAYS[word]
  if (shift !== undefined) {
    const today = toLocalDateTime(now, zone)
    const day = new Date(Date.UTC(today.year, today.month - 1, today.day + shift))
    const wall = {
      year: day.getUTCFullYear(),
      month: day.getUTCMonth() + 1,
      day: day.getUTCDate(),
      hour: 0,
      minute: 0,
      second: 0,
    }
    return { instant: fromLocalDateTime(wall, zone), wall, dateOnly: true }
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
    return { instant: fromLocalDateTime(given, zone), wall: given, dateOnly }
  }
  const offset = parseOffset(offsetText)
  if (offset === undefined) return undefined
  const instant = new Date(
    Date.UTC(given.year, given.month - 1, given.day, given.hour, given.minute, given.second) -
      offset * 60_000,
  )
  return { instant, wall: toLocalDateTime(instant, zone), dateOnly }
}

/** Whether {@link parseDateInput} would accept the text (zone-independent). */
export const isDateInput = (text: string) => parseDateInput(text, 'UTC', new Date(0)) !== undefined

function parseOffset(text: string): number | undefined {
  if (text.toUpperCase() === 'Z') return 0
  const digits = text.slice(1).replace(':', '')
  const hours = Number(digits.slice(0, 2))
  const minutes = Number(digits.slice(2) || 0)
  if (hours > 14 || minutes > 59) return undefined
  return (text[0] === '-' ? -1 : 1) * (hours * 60 + minutes)
}

function isRealWallTime(w: LocalDateTime): boolean {
  if (w.year < 1 || w.month < 1 || w.month > 12 || w.day < 1) return false
  if (w.hour > 23 || w.minute > 59 || w.second > 59) return false
  const lastDay = new Date(Date.UTC(w.year, w.month, 0)).getUTCDate()
  return w.day <= lastDay
}
