import { Temporal } from 'temporal-polyfill'
import { temporalZoneId } from './zone-id.js'

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

/**
 * The proleptic Gregorian year of a wall second, by arithmetic (days → era of 400 years →
 * year of era, from March 1st as the era's first day): counts call it per query, so it makes
 * no Date object.
 */
export function yearOfWall(wall: number): number {
  const z = Math.floor(wall / 86_400) + 719_468 // days since 0000-03-01
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  )
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  // Days 306 on (January and February) belong to the next calendar year.
  return yoe + era * 400 + (doy >= 306 ? 1 : 0)
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

const DAY_MS = 86_400_000
/** Around a transition, the conversions ask Temporal itself (its rules for gaps and overlaps). */
const QUIET_MS = 3 * DAY_MS

/** A zone's UTC offsets over one calendar year (UTC) and three days either side. */
interface OffsetSpan {
  /** The year's first instant and the next year's (ms). */
  yearFrom: number
  yearTo: number
  from: number
  to: number
  /** Transition instants in (from, to], ascending. */
  at: number[]
  /** offsets[i] (ms) holds before at[i]; the last one after the last transition. */
  offsets: number[]
}

/**
 * The UTC offsets of one zone, read from Temporal once per calendar year as its transition
 * instants (a handful a year), so converting a wall time far from a transition is arithmetic:
 * a Temporal conversion is costly, and a list counts thousands of occurrences.
 * Shared by every series in the zone; tzdata does not change while the process runs.
 */
class ZoneOffsets {
  private readonly spans = new Map<number, OffsetSpan>()
  /** The span asked last: a list's counts mostly ask within one year. */
  private last?: OffsetSpan
  constructor(readonly zoneId: string) {}

  private span(ms: number): OffsetSpan {
    const last = this.last
    if (last && ms >= last.yearFrom && ms < last.yearTo) return last
    const year = yearOfWall(Math.floor(ms / 1000))
    let span = this.spans.get(year)
    if (!span) {
      span = this.read(year)
      this.spans.set(year, span)
    }
    this.last = span
    return span
  }

  private read(year: number): OffsetSpan {
    const first = new Date(0)
    first.setUTCFullYear(year, 0, 1)
    const next = new Date(0)
    next.setUTCFullYear(year + 1, 0, 1)
    const from = first.getTime() - QUIET_MS
    const to = next.getTime() + QUIET_MS
    let z = Temporal.Instant.fromEpochMilliseconds(from).toZonedDateTimeISO(this.zoneId)
    const at: number[] = []
    const offsets = [z.offsetNanoseconds / 1e6]
    for (;;) {
      const t = z.getTimeZoneTransition('next')
      if (!t || t.epochMilliseconds > to) break
      at.push(t.epochMilliseconds)
      offsets.push(t.offsetNanoseconds / 1e6)
      z = t
    }
    return { yearFrom: first.getTime(), yearTo: next.getTime(), from, to, at, offsets }
  }

  /**
   * The zone's offset (ms) at `ms` when no transition lies within `QUIET_MS` of it, else
   * `undefined` (the caller asks Temporal).
   */
  quietOffset(ms: number): number | undefined {
    const { at, offsets } = this.span(ms)
    let i = 0
    while (i < at.length && (at[i] as number) <= ms) i++
    if (i > 0 && ms - (at[i - 1] as number) < QUIET_MS) return undefined
    if (i < at.length && (at[i] as number) - ms <= QUIET_MS) return undefined
    return offsets[i]
  }

  /** The forward changes (DST gaps) whose transition lies within `radius` ms of `ms`. */
  gapsNear(ms: number, radius: number): Gap[] {
    const gaps = new Map<number, Gap>()
    for (const span of new Set([this.span(ms - radius), this.span(ms + radius)])) {
      span.at.forEach((at, i) => {
        const [before, after] = [span.offsets[i] as number, span.offsets[i + 1] as number]
        if (after > before && Math.abs(at - ms) <= radius)
          gaps.set(at, { at, start: (at + before) / 1000, end: (at + after) / 1000 })
      })
    }
    return [...gaps.values()]
  }
}

/**
 * Wall seconds [start, end) a forward change skips (02:00-03:00 in spring in New York), and its
 * instant `at`. RFC 5545 moves a wall time in it forward by its length: it starts when the
 * wall time `end - start` later does, so occurrences in a gap share instants with those after.
 */
export interface Gap {
  at: number
  start: number
  end: number
}

const zoneOffsets = new Map<string, ZoneOffsets>()

/**
 * Maps wall times of one zone to instants and back, as RFC 5545 says for occurrences: a wall
 * time in a DST gap moves forward by the gap, one in an overlap is the first instant (Temporal's
 * 'compatible'). Outside the gaps the map is monotonic (a later wall time is never an earlier
 * instant), which is what lets windows of instants become windows of wall times; a gap's walls
 * land on the instants of the walls one gap later, so a window near a gap also holds gap walls
 * (`gapsNear`). Away from the zone's transitions the offset is constant and the map is
 * arithmetic; near one, Temporal decides.
 */
export class ZoneClock {
  readonly zoneId: string
  private readonly offsets: ZoneOffsets
  constructor(zone: string) {
    this.zoneId = temporalZoneId(zone)
    let offsets = zoneOffsets.get(this.zoneId)
    if (!offsets) {
      offsets = new ZoneOffsets(this.zoneId)
      zoneOffsets.set(this.zoneId, offsets)
    }
    this.offsets = offsets
  }

  instantMs(wall: number): number {
    // |offset| < 1 day: wall - offset lies within the quiet span around wall read as UTC.
    const offset = this.offsets.quietOffset(wall * 1000)
    if (offset !== undefined) return wall * 1000 - offset
    return this.temporalInstantMs(wall)
  }

  private temporalInstantMs(wall: number): number {
    return wallToPlain(wall).toZonedDateTime(this.zoneId, { disambiguation: 'compatible' })
      .epochMilliseconds
  }

  /** The gaps whose transition is within 3 days of `ms`: only they move walls near it. */
  gapsNear(ms: number): Gap[] {
    return this.offsets.quietOffset(ms) !== undefined ? [] : this.offsets.gapsNear(ms, QUIET_MS)
  }

  /** The last wall second outside a gap whose instant is at or before `ms`. */
  lastWallAtOrBefore(ms: number): number {
    const offset = this.offsets.quietOffset(ms)
    if (offset !== undefined) return Math.floor((ms + offset) / 1000)
    const [lo] = this.bisect(ms, (instant) => instant <= ms)
    return lo
  }

  /** The first wall second outside a gap whose instant is at or after `ms`. */
  firstWallAtOrAfter(ms: number): number {
    const offset = this.offsets.quietOffset(ms)
    // + 0: no -0 (a wall second is a key).
    if (offset !== undefined) return Math.ceil((ms + offset) / 1000) + 0
    const [, hi, gaps] = this.bisect(ms, (instant) => instant < ms)
    // A gap wall is never the answer: the gap's end has the same instant (its transition).
    return gaps.find((g) => hi >= g.start && hi < g.end)?.end ?? hi
  }

  /**
   * Bisects the walls within 2 days of `ms` (walls and instants differ by under 2 days) for the
   * boundary of `below`, on a monotonic map: outside gaps the instant, in a gap its transition.
   */
  private bisect(ms: number, below: (instant: number) => boolean): [number, number, Gap[]] {
    const gaps = this.offsets.gapsNear(ms, QUIET_MS + 2 * DAY_MS)
    const monotonic = (wall: number) =>
      gaps.find((g) => wall >= g.start && wall < g.end)?.at ?? this.instantMs(wall)
    const guess = Math.floor(ms / 1000)
    let lo = guess - 2 * 86400 // below(lo)
    let hi = guess + 2 * 86400 // !below(hi)
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2)
      if (below(monotonic(mid))) lo = mid
      else hi = mid
    }
    return [lo, hi, gaps]
  }

  /** The wall second the zone's clocks show at `ms` (whole seconds). */
  wallAt(ms: number): number {
    const second = Math.floor(ms / 1000) * 1000
    const offset = this.offsets.quietOffset(second)
    if (offset !== undefined) return (second + offset) / 1000
    const z = Temporal.Instant.fromEpochMilliseconds(second).toZonedDateTimeISO(this.zoneId)
    return plainToWall(z)
  }
}
