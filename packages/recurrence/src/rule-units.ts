import { LibraryRule } from './library-rule.js'
import type { RuleParts } from './rule-parts.js'
import { WEEKDAYS } from './rule-parts.js'

// Fast counting and indexing without enumerating millions of occurrences. A rule's
// occurrences come in units (its FREQ's periods: a year, month, week or day; days for HOURLY),
// and what one unit holds depends only on the unit's calendar shape: a leap year starting on a
// Tuesday, a 30-day month starting on a Sunday, a day in March. The library expands each shape
// once (on the first real unit of that shape, so its answer is the rule's own); every other
// unit of that shape reuses the offsets. The arithmetic here only decides which units are
// active (INTERVAL) and which shape a unit has; it never decides an occurrence itself, except
// the limits of DAILY and HOURLY rules (BYMONTH, BYMONTHDAY, BYDAY, BYYEARDAY say whether a
// day has the rule's times at all), which the property tests check against the library.
// The Gregorian calendar repeats every 400 years (146,097 days, whole weeks), so a rule's
// yearly counts repeat every `cycleYears`.

const DAY = 86400
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))
const mod = (a: number, n: number) => ((a % n) + n) % n
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
/** Day number (days since 1970-01-01) of a date; month 1-12. */
export const dayNumber = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d) / (DAY * 1000)
/** Monday 0 … Sunday 6. */
const weekday = (day: number) => mod(day + 3, 7)
const monthLength = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate()

export { yearOfWall } from './wall-clock.js'
export const yearStartWall = (y: number) => Date.UTC(y, 0, 1) / 1000

/** Units of 400 Gregorian years, per FREQ (HOURLY counts days: its INTERVAL divides 24). */
const UNITS_PER_400_YEARS = {
  YEARLY: 400,
  MONTHLY: 4800,
  WEEKLY: 20871,
  DAILY: 146097,
  HOURLY: 146097,
}

export class RuleUnits {
  /** Years after which the rule's yearly counts repeat (from the year after the start on). */
  readonly cycleYears: number
  private readonly k: number
  private readonly startDay: number
  private readonly startYear: number
  private readonly startMonthIndex: number
  private readonly weekAnchor: number
  private readonly wkst: number
  private readonly shapes = new Map<string, number[]>()
  private readonly startUnit: number
  private readonly days: {
    months?: Set<number>
    monthDays?: number[]
    weekdays?: Set<number>
    yearDays?: number[]
  }

  private readonly lib: LibraryRule
  /** The library starts at the real start (cycle too long to go back): its unit is partial. */
  private readonly startUnitPartial: boolean
  private startContent?: number[]

  constructor(
    ruleText: string,
    private readonly p: RuleParts,
    private readonly startWall: number,
    allDay: boolean,
  ) {
    // HOURLY with an INTERVAL dividing 24 has the same hours active every day: its unit is a day.
    this.k = p.freq === 'HOURLY' ? 1 : p.interval
    const units = UNITS_PER_400_YEARS[p.freq]
    this.cycleYears = 400 * (this.k / gcd(this.k, units))
    this.startDay = Math.floor(startWall / DAY)
    const s = new Date(startWall * 1000)
    this.startYear = s.getUTCFullYear()
    this.startMonthIndex = this.startYear * 12 + s.getUTCMonth()
    this.wkst = WEEKDAYS.indexOf(p.wkst ?? 'MO')
    this.weekAnchor = this.weekStart(this.startDay)
    this.days = {
      months: p.byMonth && new Set(p.byMonth),
      monthDays: p.byMonthDay,
      weekdays: p.byDay && new Set(p.byDay.map((d) => WEEKDAYS.indexOf(d.day))),
      yearDays: p.byYearDay,
    }
    this.startUnit = this.unitStartOf(startWall)
    // The library expands from a DTSTART one cycle earlier (same date, weekday and phase), so
    // the start's own unit is a whole unit like any other: BYSETPOS counts its candidates
    // before the start too, as RFC 5545 says, and the start must be one of its occurrences.
    const earlier = this.startYear - this.cycleYears
    // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
    const dtstart =
      earlier >= 1 ? new Date(startWall * 1000).setUTCFullYear(earlier) / 1000 : startWall
    this.lib = new LibraryRule(ruleText, dtstart, allDay)
    this.startUnitPartial = dtstart === startWall
  }

  private weekStart(day: number): number {
    return day - mod(weekday(day) - this.wkst, 7)
  }

  /** The wall second the unit holding `wall` starts at. */
  private unitStartOf(wall: number): number {
    const d = new Date(wall * 1000)
    const day = Math.floor(wall / DAY)
    switch (this.p.freq) {
      case 'YEARLY':
        return yearStartWall(d.getUTCFullYear())
      case 'MONTHLY':
        return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000
      case 'WEEKLY':
        return this.weekStart(day) * DAY
      default:
        return day * DAY
    }
  }

  private unitEnd(unitStart: number): number {
    const d = new Date(unitStart * 1000)
    switch (this.p.freq) {
      case 'YEARLY':
        return yearStartWall(d.getUTCFullYear() + 1) - 1
      case 'MONTHLY':
        return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000 - 1
      case 'WEEKLY':
        return unitStart + 7 * DAY - 1
      default:
        return unitStart + DAY - 1
    }
  }

  /** The shape of the unit starting at `unitStart`, or null when it holds no occurrence. */
  private shape(unitStart: number): string | null {
    const d = new Date(unitStart * 1000)
    const y = d.getUTCFullYear()
    const m = d.getUTCMonth() + 1
    const day = Math.floor(unitStart / DAY)
    const p = this.p
    switch (p.freq) {
      case 'YEARLY': {
        const active = (yy: number) => mod(yy - this.startYear, this.k) === 0
        const base = `${isLeap(y) ? 1 : 0}${weekday(day)}`
        // BYWEEKNO weeks of one year reach into the next and the one before.
        if (!p.byWeekNo) return active(y) ? base : null
        if (!active(y - 1) && !active(y) && !active(y + 1)) return null
        return `${base}${isLeap(y - 1) ? 1 : 0}${isLeap(y + 1) ? 1 : 0}${+active(y - 1)}${+active(y)}${+active(y + 1)}`
      }
      case 'MONTHLY':
        if (mod(y * 12 + m - 1 - this.startMonthIndex, this.k) !== 0) return null
        return `${p.byMonth ? m : 0}|${monthLength(y, m)}|${weekday(day)}`
      case 'WEEKLY': {
        if (mod((day - this.weekAnchor) / 7, this.k) !== 0) return null
        if (!p.byMonth) return ''
        const left = monthLength(y, m) - d.getUTCDate() + 1
        return `${m}|${Math.min(7, left)}`
      }
      default:
        if (p.freq === 'DAILY' && mod(day - this.startDay, this.k) !== 0) return null
        return this.dayPasses(y, m, d.getUTCDate(), day) ? '' : null
    }
  }

  /** RFC 5545's limits of a DAILY or HOURLY rule on one day. */
  private dayPasses(y: number, m: number, md: number, day: number): boolean {
    const { months, monthDays, weekdays, yearDays } = this.days
    if (months && !months.has(m)) return false
    if (weekdays && !weekdays.has(weekday(day))) return false
    if (monthDays) {
      const len = monthLength(y, m)
      if (!monthDays.some((n) => n === md || n === md - len - 1)) return false
    }
    if (yearDays) {
      const yd = day - dayNumber(y, 1, 1) + 1
      const len = isLeap(y) ? 366 : 365
      if (!yearDays.some((n) => n === yd || n === yd - len - 1)) return false
    }
    return true
  }

  /** Offsets from the unit's start of the occurrences the unit at `unitStart` holds. */
  private content(unitStart: number): number[] {
    if (unitStart < this.startUnit) return []
    // A partial start unit is no shape to reuse for whole units.
    if (unitStart === this.startUnit && this.startUnitPartial) {
      this.startContent ??= this.lib
        .between(unitStart, this.unitEnd(unitStart))
        .map((w) => w - unitStart)
      return this.startContent
    }
    const shape = this.shape(unitStart)
    if (shape === null) return []
    let offsets = this.shapes.get(shape)
    if (!offsets) {
      offsets = this.lib.between(unitStart, this.unitEnd(unitStart)).map((w) => w - unitStart)
      this.shapes.set(shape, offsets)
    }
    return offsets
  }

  /** Starts of the units (possibly) active that overlap calendar year `y`, ascending. */
  private unitsOfYear(y: number): number[] {
    const first = yearStartWall(y)
    const next = yearStartWall(y + 1)
    const firstDay = first / DAY
    const out: number[] = []
    switch (this.p.freq) {
      case 'YEARLY':
        out.push(first)
        break
      case 'MONTHLY':
        for (let m = mod(this.startMonthIndex - y * 12, this.k); m < 12; m += this.k)
          out.push(Date.UTC(y, m, 1) / 1000)
        break
      case 'WEEKLY': {
        // From the week holding January 1st, which may begin in December.
        const w0 = this.weekStart(firstDay)
        const step = 7 * this.k
        for (let ws = w0 + mod(this.weekAnchor - w0, step); ws * DAY < next; ws += step)
          out.push(ws * DAY)
        break
      }
      default: {
        const step = this.p.freq === 'DAILY' ? this.k : 1
        for (let d = firstDay + mod(this.startDay - firstDay, step); d * DAY < next; d += step)
          out.push(d * DAY)
      }
    }
    return out
  }

  /**
   * What the rule's walls in calendar year `y` (after the start's year) depend on, as offsets
   * from January 1st: the year's shape (leap, weekday of January 1st, the neighbours' leap for
   * BYWEEKNO weeks) and where INTERVAL's phase stands. Years with one signature hold the same.
   */
  yearSignature(y: number): string {
    const first = yearStartWall(y) / DAY
    const shape = `${isLeap(y) ? 1 : 0}${weekday(first)}`
    switch (this.p.freq) {
      case 'YEARLY':
        // BYWEEKNO weeks reach into the neighbouring years.
        return `${shape}${isLeap(y - 1) ? 1 : 0}${isLeap(y + 1) ? 1 : 0}|${mod(y - this.startYear, this.k)}`
      case 'MONTHLY':
        return `${shape}|${mod(y * 12 - this.startMonthIndex, this.k)}`
      case 'WEEKLY':
        return `${shape}|${mod((this.weekStart(first) - this.weekAnchor) / 7, this.k)}`
      case 'DAILY':
        return `${shape}|${mod(first - this.startDay, this.k)}`
      default:
        return shape
    }
  }

  /** Pushes the rule's walls in calendar year `y` from the start on (no upper bound), ascending. */
  wallsInYear(y: number, out: number[]): void {
    const first = yearStartWall(y)
    const next = yearStartWall(y + 1)
    for (const u of this.unitsOfYear(y))
      for (const o of this.content(u)) {
        const w = u + o
        if (w >= first && w < next && w >= this.startWall) out.push(w)
      }
  }

  /** How many walls `wallsInYear(y)` would push. */
  countInYear(y: number): number {
    if (this.p.freq === 'WEEKLY' || this.p.freq === 'YEARLY') {
      const out: number[] = []
      this.wallsInYear(y, out)
      return out.length
    }
    let n = 0
    for (const u of this.unitsOfYear(y))
      if (u === this.startUnit) n += this.content(u).filter((o) => u + o >= this.startWall).length
      else n += this.content(u).length
    return n
  }

  has(wall: number): boolean {
    if (wall < this.startWall) return false
    const u = this.unitStartOf(wall)
    return this.content(u).includes(wall - u)
  }
}
