import { isRepeatedWall, offsetSecondsAt } from './zone-transitions.js'

const p2 = (n: number) => String(n).padStart(2, '0')

/** `YYYYMMDDTHHMMSSZ`: an instant in RFC 5545's UTC form. */
export function utcStamp(ms: number): string {
  const d = new Date(ms)
  return `${String(d.getUTCFullYear()).padStart(4, '0')}${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())}T${p2(d.getUTCHours())}${p2(d.getUTCMinutes())}${p2(d.getUTCSeconds())}Z`
}

/** `YYYYMMDDTHHMMSS` (or `YYYYMMDD` for a date) of a wall time `YYYY-MM-DD HH:MM:SS`. */
export function wallStamp(wall: string, date = false): string {
  const digits = wall.replace(/[^0-9]/g, '')
  return date ? digits.slice(0, 8) : `${digits.slice(0, 8)}T${digits.slice(8, 14)}`
}

/**
 * True when `ms` written as its wall time with `TZID=zone` is read back as `ms` by every
 * reader: the wall time is shown once (not in a fall-back overlap, where RFC 5545 readers take
 * the first instant and ical.js the second) and the offset has no seconds (ical.js drops
 * them: New York's local mean time is -4:56:02). Otherwise the feed writes the instant in UTC.
 */
export function exactInZone(zone: string, ms: number): boolean {
  if (zone === 'UTC') return false
  return offsetSecondsAt(zone, ms) % 60 === 0 && !isRepeatedWall(zone, ms)
}

/**
 * True when an occurrence written by its start wall time and a DURATION ends at `endMs` in
 * every reader: readers add a duration on the wall clock and read the end's wall time back,
 * so no offset change may lie between and the end's wall time must be shown once too.
 */
export function durationExactInZone(zone: string, startMs: number, endMs: number): boolean {
  return (
    exactInZone(zone, startMs) &&
    exactInZone(zone, endMs) &&
    offsetSecondsAt(zone, startMs) === offsetSecondsAt(zone, endMs)
  )
}

/** The zones' spans a feed writes instants in: each VTIMEZONE covers its zone's. */
export class FeedSpans {
  private readonly spans = new Map<string, { from: number; to: number }>()

  add(zone: string, fromMs: number, toMs: number): void {
    const span = this.spans.get(zone)
    if (!span) this.spans.set(zone, { from: fromMs, to: Math.max(fromMs, toMs) })
    else {
      span.from = Math.min(span.from, fromMs)
      span.to = Math.max(span.to, toMs)
    }
  }

  get(zone: string): { from: number; to: number } | undefined {
    return this.spans.get(zone)
  }
}
