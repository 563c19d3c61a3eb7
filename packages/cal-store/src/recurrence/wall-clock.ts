import { Temporal } from 'temporal-polyfill'
import { zonedDateTime } from '../time-zone.js'

// Rules run on wall-clock time. Inside this module a wall time is a "wall second": the seconds
// since 1970-01-01 00:00:00 of the wall clock read as if it were UTC (Date.UTC: proleptic
// Gregorian, exact for every year 1000..9999). Only `wallToInstantMs` meets a real zone.

/** Wall second of 1000-01-01 00:00:00: keys count minutes from here. */
export const WALL_MIN = Date.UTC(1000, 0, 1) / 1000
/** Wall second of 9999-12-31 23:59:59, the last wall time an occurrence may start at. */
export const WALL_MAX = Date.UTC(9999, 11, 31, 23, 59, 59) / 1000
/** The last instant (epoch ms) an occurrence may start at, like every stored date. */
export const INSTANT_MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59)

const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/

/**
 * The wall second of `YYYY-MM-DD HH:MM:SS` (or `YYYY-MM-DD` when `dateOnly` is allowed), or
 * `undefined` when it is not such a text, not a real date-time, or outside 1000..9999.
 */
export function parseWallTime(text: string, dateAllowed: boolean): number | undefined {
  const m = WALL_TIME.exec(text)
  if (!m || (m[4] === undefined && !dateAllowed)) return undefined
  const [y, mo, d, h, mi, s] = m.slice(1).map((p) => Number(p ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ]
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return undefined
  const wall = Date.UTC(y, mo - 1, d, h, mi, s) / 1000
  // Date.UTC rolls 02-30 over into March: a roll-over is an unreal date.
  if (new Date(wall * 1000).getUTCDate() !== d) return undefined
  if (wall < WALL_MIN || wall > WALL_MAX) return undefined
  return wall
}

const p2 = (n: number) => String(n).padStart(2, '0')

/** `YYYY-MM-DD HH:MM:SS` of a wall second. */
export function formatWall(wall: number): string {
  const d = new Date(wall * 1000)
  return (
    `${String(d.getUTCFullYear()).padStart(4, '0')}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())} ` +
    `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`
  )
}

/** iCalendar `YYYYMMDDTHHMMSS` (or `YYYYMMDD` with `dateOnly`) of a wall second. */
export function formatIcal(wall: number, dateOnly: boolean): string {
  const t = formatWall(wall).replace(/[-:]/g, '')
  return dateOnly ? t.slice(0, 8) : t.replace(' ', 'T')
}

/** The occurrence key of a wall second: its minute since 1000-01-01 00:00. */
export const wallKey = (wall: number): number => Math.floor((wall - WALL_MIN) / 60)

/** The Temporal time-zone id of a store zone (`UTC+5:30` → `+05:30`). */
export function temporalZoneId(zone: string): string {
  return zonedDateTime(new Date(0), zone).timeZoneId
}

/** A wall second as a Temporal.PlainDateTime. */
export function wallToPlain(wall: number): Temporal.PlainDateTime {
  const d = new Date(wall * 1000)
  return new Temporal.PlainDateTime(
    d.getUTCFullYear(),
    d.getUTCMonth() + 1,
    d.getUTCDate(),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
  )
}

/** The wall second of a Temporal plain or zoned date-time (its wall clock, zone ignored). */
export function plainToWall(t: Temporal.PlainDateTime | Temporal.ZonedDateTime): number {
  return Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second) / 1000
}

/**
 * Maps wall times of one zone to instants and back, as RFC 5545 says for occurrences: a wall
 * time in a DST gap moves forward by the gap, one in an overlap is the first instant (Temporal's
 * 'compatible'). The map is monotonic (a later wall time is never an earlier instant), which
 * is what lets windows of instants become windows of wall times.
 */
export class ZoneClock {
  readonly zoneId: string
  constructor(zone: string) {
    this.zoneId = temporalZoneId(zone)
  }

  instantMs(wall: number): number {
    return wallToPlain(wall).toZonedDateTime(this.zoneId, { disambiguation: 'compatible' })
      .epochMilliseconds
  }

  /** The last wall second whose instant is at or before `ms`. */
  lastWallAtOrBefore(ms: number): number {
    // Walls and instants differ by under 2 days; the map is monotonic: bisect that band.
    const guess = Math.floor(ms / 1000)
    let lo = guess - 2 * 86400 // instant(lo) ≤ ms
    let hi = guess + 2 * 86400 // instant(hi) > ms
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2)
      if (this.instantMs(mid) <= ms) lo = mid
      else hi = mid
    }
    return lo
  }

  /** The first wall second whose instant is at or after `ms`. */
  firstWallAtOrAfter(ms: number): number {
    const guess = Math.floor(ms / 1000)
    let lo = guess - 2 * 86400 // instant(lo) < ms
    let hi = guess + 2 * 86400 // instant(hi) ≥ ms
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2)
      if (this.instantMs(mid) < ms) lo = mid
      else hi = mid
    }
    return hi
  }

  /** The wall second the zone's clocks show at `ms` (whole seconds). */
  wallAt(ms: number): number {
    const z = Temporal.Instant.fromEpochMilliseconds(
      Math.floor(ms / 1000) * 1000,
    ).toZonedDateTimeISO(this.zoneId)
    return plainToWall(z)
  }
}
