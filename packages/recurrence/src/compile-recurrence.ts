import { FastWallSet } from './fast-wall-set.js'
import type { Occurrence, Recurrence, RecurrenceInput, SeriesTiming } from './recurrence.js'
import { RecurrenceError } from './recurrence-error.js'
import { type CheckedRecurrence, checkRecurrenceInput } from './recurrence-input.js'
import {
  formatIcal,
  formatWall,
  INSTANT_MAX_MS,
  parseWallTime,
  WALL_MAX,
  WALL_MIN,
  wallKey,
  ZoneClock,
} from './wall-clock.js'
import type { WallSet } from './wall-set.js'

const DEFAULT_LIMIT = 10_000
// Windows are clipped to the years any occurrence can have (Temporal refuses far instants).
const FIRST_MS = Date.UTC(999, 11, 30)
const LAST_MS = INSTANT_MAX_MS + 86_400_000
const clip = (ms: number) => Math.min(LAST_MS, Math.max(FIRST_MS, ms))
const byStart = (x: Occurrence, y: Occurrence) => x.startMs - y.startMs || x.key - y.key

/** Validates (every refusal of the spec) and compiles. Throws RecurrenceError. */
export function compileRecurrence(input: unknown, timing: SeriesTiming): Recurrence {
  const { clock, startWall, endWall } = checkTiming(timing)
  const checked = checkRecurrenceInput(input, startWall, timing.allDay, clock)
  for (const r of checked.rules)
    if (r.parts.freq === 'HOURLY' && 24 % r.parts.interval !== 0)
      throw new RecurrenceError(
        `rule "${r.text}": FREQ=HOURLY takes an INTERVAL that divides 24 (for other patterns use FREQ=DAILY with BYHOUR)`,
      )
  const set = new FastWallSet(checked, startWall, endWall, timing.allDay)
  checkAgainstRules(checked, set, startWall)
  // The year table now, so a rule the library cannot expand is refused here, not in a list.
  set.table()
  return new SeriesRecurrence(checked, set, timing, clock, startWall)
}

/**
 * RFC 5545 leaves a series whose DTSTART is not an occurrence of its rule undefined (ical.js
 * counts such a start into COUNT for some rules and drops it for others), so the start must be
 * one of every rule; and no rdate may share a wall-clock minute with another occurrence.
 */
function checkAgainstRules(checked: CheckedRecurrence, set: FastWallSet, startWall: number) {
  set.rules.forEach((r, i) => {
    if (!r.units.has(startWall))
      throw new RecurrenceError(
        `rule "${checked.rules[i]?.text}": the start ${formatWall(startWall)} is not one of its occurrences (start the series on its first occurrence)`,
      )
  })
  const second = startWall % 60
  let previous = Number.NaN
  for (const w of checked.rdates) {
    const ruleWall = w - (w % 60) + second
    if (
      Math.floor(w / 60) === Math.floor(previous / 60) ||
      (ruleWall !== w && set.rulesHave(ruleWall))
    )
      throw new RecurrenceError(
        `rdates entry ${formatWall(w)} shares its wall-clock minute with another occurrence (an occurrence is keyed by its minute)`,
      )
    previous = w
  }
}

function checkTiming(timing: SeriesTiming) {
  let clock: ZoneClock
  try {
    clock = new ZoneClock(timing.zone)
  } catch {
    throw new RecurrenceError(`unknown time zone ${timing.zone}`)
  }
  const startWall = parseWallTime(timing.start, false)
  if (startWall === undefined)
    throw new RecurrenceError(`start ${timing.start} is not YYYY-MM-DD HH:MM:SS in 1000..9999`)
  if (timing.allDay && startWall % 86400 !== 0)
    throw new RecurrenceError('an all-day series starts at 00:00:00')
  if (!Number.isInteger(timing.durationSeconds) || timing.durationSeconds < 0)
    throw new RecurrenceError('durationSeconds must be a whole number ≥ 0')
  // Occurrences end at 9999-12-31, on the wall clock and in UTC, like every stored date.
  const endWall = Math.min(WALL_MAX, clock.lastWallAtOrBefore(INSTANT_MAX_MS))
  return { clock, startWall, endWall }
}

class SeriesRecurrence implements Recurrence {
  readonly input: RecurrenceInput
  readonly infinite: boolean
  readonly startKey: number
  private readonly startSecond: number

  constructor(
    private readonly checked: CheckedRecurrence,
    private readonly set: WallSet,
    private readonly timing: SeriesTiming,
    private readonly clock: ZoneClock,
    startWall: number,
  ) {
    this.input = checked.normalised
    this.infinite = checked.rules.some(
      (r) => r.parts.count === undefined && r.parts.until === undefined,
    )
    this.startSecond = startWall % 60
    this.startKey = wallKey(startWall)
  }

  between(fromMs: number, toMs: number, limit = DEFAULT_LIMIT): Occurrence[] {
    if (!(fromMs <= toMs) || limit < 1) return []
    // Each piece is in start order; the first `limit` of all are among each one's first.
    const walls = this.pieces(fromMs, toMs).flatMap(([a, b]) => this.set.list(a, b, limit))
    const all = walls.map((w) => this.occurrence(w))
    return all.length <= 1 ? all : all.sort(byStart).slice(0, limit)
  }

  count(fromMs: number, toMs: number): number {
    if (!(fromMs <= toMs)) return 0
    let n = 0
    for (const [a, b] of this.pieces(fromMs, toMs)) n += this.set.count(a, b)
    return n
  }

  nth(fromMs: number, n: number): Occurrence | undefined {
    if (!Number.isInteger(n) || n < 0 || Number.isNaN(fromMs)) return undefined
    const from = clip(fromMs)
    const w = this.set.nth(this.clock.firstWallAtOrAfter(from), n)
    // Wall order is start order but for starts within a gap's moved span [at, at + length):
    // away from those (a second's margin) the n-th wall is the n-th start.
    const at = w === undefined ? undefined : this.clock.instantMs(w)
    const clear = (ms: number) =>
      this.clock
        .gapsNear(ms)
        .every((g) => ms < g.at - 1000 || ms > g.at + (g.end - g.start + 1) * 1000)
    if (at !== undefined && clear(from) && clear(at)) {
      return this.occurrence(w as number)
    }
    // Near a gap the orders differ by under a day: search the first second t with n + 1 starts
    // in [from, t], between bounds known to hold it.
    const wholeSecond = (ms: number) => Math.ceil(ms / 1000) * 1000
    let lo = wholeSecond(Math.max(from, (at ?? from) - 2 * 86_400_000)) - 1000
    let hi = at === undefined ? LAST_MS : wholeSecond(at + 2 * 86_400_000)
    if (lo >= from && this.count(from, lo) > n) [lo, hi] = [from - 1000, lo]
    if (this.count(from, hi) <= n) return undefined
    while (hi - lo > 1000) {
      const mid = wholeSecond((lo + hi) / 2 - 500)
      if (this.count(from, mid) > n) hi = mid
      else lo = mid
    }
    const before = lo < from ? 0 : this.count(from, lo)
    return this.between(Math.max(from, lo + 1), hi)[n - before]
  }

  /**
   * The wall ranges whose walls are exactly the occurrences starting in [fromMs, toMs]: the
   * walls between the window's ends, less those in a gap near an end and plus the gap walls
   * that move into the window (a gap's wall starts when the wall one gap later does).
   */
  private pieces(fromMs: number, toMs: number): [number, number][] {
    const [from, to] = [clip(fromMs), clip(toMs)]
    const lo = this.clock.firstWallAtOrAfter(from)
    const hi = this.clock.lastWallAtOrBefore(to)
    const near = [...this.clock.gapsNear(from), ...this.clock.gapsNear(to)]
    if (near.length === 0) return [[lo, hi]]
    const gaps = [...new Map(near.map((g) => [g.at, g])).values()].sort((x, y) => x.at - y.at)
    const pieces: [number, number][] = []
    let next = lo
    for (const g of gaps) {
      const length = g.end - g.start
      if (g.start <= hi) {
        if (g.start > next) pieces.push([next, g.start - 1])
        next = Math.max(next, g.end)
      }
      const moved: [number, number] = [
        Math.max(g.start, lo - length),
        Math.min(g.end - 1, hi - length),
      ]
      if (moved[0] <= moved[1]) pieces.push(moved)
    }
    if (next <= hi) pieces.push([next, hi])
    return pieces
  }

  byKey(key: number): Occurrence | undefined {
    if (!Number.isInteger(key) || key < 0 || key >= 2 ** 33) return undefined
    const minute = WALL_MIN + key * 60
    // The rules give the start's second; an rdate may carry another in its own minute.
    const candidates = new Set([minute + this.startSecond])
    for (const r of this.checked.rdates) if (r >= minute && r < minute + 60) candidates.add(r)
    for (const w of candidates) if (this.set.has(w)) return this.occurrence(w)
    return undefined
  }

  icalLines(): string[] {
    const lines = this.checked.rules.map((r) => `RRULE:${r.text}`)
    const { allDay, zone } = this.timing
    const dateLine = (name: string, w: number) =>
      allDay
        ? `${name};VALUE=DATE:${formatIcal(w, true)}`
        : zone === 'UTC'
          ? `${name}:${formatIcal(w, false)}Z`
          : `${name};TZID=${zone}:${formatIcal(w, false)}`
    for (const w of this.checked.rdates) lines.push(dateLine('RDATE', w))
    for (const w of this.checked.exdates) lines.push(dateLine('EXDATE', w))
    return lines
  }

  private occurrence(wall: number): Occurrence {
    const startMs = this.clock.instantMs(wall)
    const duration = this.timing.durationSeconds
    if (this.timing.allDay) {
      // Dates: the wall clock is the truth; the end date may be clipped at 9999-12-31.
      const endWall = Math.min(WALL_MAX, wall + duration)
      return {
        key: wallKey(wall),
        wall: formatWall(wall),
        start: formatWall(wall),
        end: formatWall(endWall),
        startMs,
        endMs: Math.min(INSTANT_MAX_MS, Math.max(startMs, this.clock.instantMs(endWall))),
      }
    }
    const endMs = Math.min(INSTANT_MAX_MS, startMs + duration * 1000)
    return {
      key: wallKey(wall),
      wall: formatWall(wall),
      start: formatWall(this.clock.wallAt(startMs)),
      end: formatWall(Math.min(WALL_MAX, this.clock.wallAt(endMs))),
      startMs,
      endMs,
    }
  }
}
