import { RecurrenceError } from './recurrence-error.js'
import type { CheckedRecurrence } from './recurrence-input.js'
import { RuleUnits, yearOfWall, yearStartWall } from './rule-units.js'
import type { WallSet } from './wall-set.js'

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))
/** Walls merged across rules while building the year table, at most: a bound on compile time. */
const MERGE_BUDGET = 150_000
/** A rule with at most this many walls in all is counted as points, not per year. */
const SPARSE_RULE = 20_000

interface Rule {
  units: RuleUnits
  lastWall: number // COUNT, UNTIL and the end of 9999 as one bound
}

/**
 * The occurrences of a series counted per calendar year: a prefix table over the years from
 * the start to 9999 answers count and nth with one lookup and one year's expansion. Years
 * without an edge (the start, a rule's end, rdates, exdates) come from the rules' cycles
 * (see RuleUnits), so building the table expands at most one cycle of years.
 */
export class FastWallSet implements WallSet {
  readonly rules: Rule[]
  private readonly startYear: number
  private readonly lastYear: number
  private readonly exdates: Set<number>
  private readonly rdates: number[]
  private prefix?: Float64Array
  private readonly cycles = new Map<number, Int32Array>()
  private readonly yearCache = new Map<number, number[]>()
  private mergedWalls = 0

  constructor(
    checked: CheckedRecurrence,
    private readonly startWall: number,
    private readonly endWall: number,
    allDay: boolean,
  ) {
    this.startYear = yearOfWall(startWall)
    this.lastYear = yearOfWall(endWall)
    this.exdates = new Set(checked.exdates)
    this.rdates = checked.rdates.filter((w) => w <= endWall)
    this.rules = checked.rules.map((r, j) => {
      // COUNT and UNTIL are bounds here; the library expands the unbounded rule, which lets
      // it jump straight to any unit.
      const text = r.text
        .split(';')
        .filter((p) => !p.startsWith('COUNT=') && !p.startsWith('UNTIL='))
        .join(';')
      const units = new RuleUnits(text, r.parts, startWall, allDay)
      const rule: Rule = { units, lastWall: Math.min(endWall, r.untilWall ?? endWall) }
      if (r.parts.count !== undefined) {
        const last = this.nthOfRule(rule, j, r.parts.count - 1)
        if (last !== undefined) rule.lastWall = Math.min(rule.lastWall, last)
      }
      return rule
    })
  }

  /** The n-th wall of one rule alone, from the start, within its bound. */
  private nthOfRule(rule: Rule, index: number, n: number): number | undefined {
    let left = n
    for (let y = this.startYear; y <= this.lastYear; y++) {
      const count =
        y <= this.startYear + 1 ? rule.units.countInYear(y) : this.cycleCount(1 << index, y, [rule])
      if (left < count) {
        const walls: number[] = []
        rule.units.wallsInYear(y, walls)
        const w = walls[left]
        return w !== undefined && w <= rule.lastWall ? w : undefined
      }
      left -= count
    }
    return undefined
  }

  /**
   * Distinct walls of `rules` (unbounded) in year y ≥ start year + 2, from their cycle (the
   * year after the start's may still hold part of the start's unit, which is no shape).
   */
  private cycleCount(mask: number, y: number, rules: Rule[]): number {
    let table = this.cycles.get(mask)
    if (!table) {
      let cycle = 1
      for (const r of rules) cycle = (cycle / gcd(cycle, r.units.cycleYears)) * r.units.cycleYears
      const length = Math.max(0, Math.min(cycle, this.lastYear - this.startYear - 1))
      table = new Int32Array(length)
      // Years of one signature hold the same walls: expand each signature once.
      const bySignature = new Map<string, number>()
      for (let i = 0; i < length; i++) {
        const yy = this.startYear + 2 + i
        const signature = rules.map((r) => r.units.yearSignature(yy)).join('/')
        let count = bySignature.get(signature)
        if (count === undefined) {
          if (rules.length === 1) count = rules[0]?.units.countInYear(yy) ?? 0
          else {
            const walls: number[] = []
            for (const r of rules) r.units.wallsInYear(yy, walls)
            count = new Set(walls).size
            // Rules whose signatures rarely meet (INTERVALs without common cycles) would have
            // every year merged: past a budget, refuse rather than answer slowly.
            this.mergedWalls += walls.length
            if (this.mergedWalls > MERGE_BUDGET)
              throw new RecurrenceError(
                'these rules together are too costly to index (their INTERVALs share no cycle): combine them into fewer rules',
              )
          }
          bySignature.set(signature, count)
        }
        table[i] = count
      }
      this.cycles.set(mask, table)
    }
    return table[(y - this.startYear - 2) % table.length] ?? 0
  }

  /** Every wall of the series in year y, ascending: rules within bounds, rdates, no exdates. */
  private yearWalls(y: number): number[] {
    let walls = this.yearCache.get(y)
    if (walls) return walls
    const all: number[] = []
    const first = yearStartWall(y)
    for (const r of this.rules) {
      if (r.lastWall < first) continue
      const from = all.length
      r.units.wallsInYear(y, all)
      // Drop what lies past the rule's bound (walls are ascending per rule).
      let end = all.length
      while (end > from && (all[end - 1] as number) > r.lastWall) end--
      all.length = end
    }
    for (const w of this.rdates) if (w >= first && w < yearStartWall(y + 1)) all.push(w)
    walls = [...new Set(all)]
      .filter((w) => w >= this.startWall && !this.exdates.has(w))
      .sort((a, b) => a - b)
    if (this.yearCache.size > 8) this.yearCache.delete(this.yearCache.keys().next().value as number)
    this.yearCache.set(y, walls)
    return walls
  }

  /** True when some rule (within its bound) has `wall`. */
  rulesHave(wall: number): boolean {
    return this.rules.some((r) => wall <= r.lastWall && r.units.has(wall))
  }

  /** How many walls rule `index` alone has from the start to its bound (stops past SPARSE_RULE). */
  private ruleTotal(rule: Rule, index: number): number {
    let total = 0
    for (let y = this.startYear; y <= yearOfWall(rule.lastWall) && total <= SPARSE_RULE; y++)
      total +=
        y <= this.startYear + 1 || y === yearOfWall(rule.lastWall)
          ? this.boundedCount(rule, y)
          : this.cycleCount(1 << index, y, [rule])
    return total
  }

  private boundedCount(rule: Rule, y: number): number {
    const walls: number[] = []
    rule.units.wallsInYear(y, walls)
    return walls.filter((w) => w <= rule.lastWall).length
  }

  /** prefix[i]: walls in the years before startYear + i. Built once (compile does it). */
  table(): Float64Array {
    if (this.prefix) return this.prefix
    const years = this.lastYear - this.startYear + 1
    const prefix = new Float64Array(years + 1)
    // Years whose count the cycles cannot give: the start, each rule's last year, and
    // corrections for rdates and exdates (counted against the rules).
    const explicit = new Set([
      this.startYear,
      this.startYear + 1,
      ...this.rules.map((r) => yearOfWall(r.lastWall)),
    ])
    // A rule with few occurrences in all (YEARLY;INTERVAL=13, DAILY;INTERVAL=7919, a small
    // COUNT) joins the rdates as single points: merged into every year's table it would make
    // each year's signature new. The others (dense) give the years' counts from their cycles.
    const dense: Rule[] = []
    const points = new Set(this.rdates)
    this.rules.forEach((r, j) => {
      if (this.rules.length > 1 && this.ruleTotal(r, j) <= SPARSE_RULE) {
        for (let y = this.startYear; y <= yearOfWall(r.lastWall); y++) {
          const walls: number[] = []
          r.units.wallsInYear(y, walls)
          for (const w of walls) if (w <= r.lastWall) points.add(w)
        }
      } else dense.push(r)
    })
    const denseHave = (w: number) => dense.some((r) => w <= r.lastWall && r.units.has(w))
    const correction = new Map<number, number>()
    const add = (w: number, d: number) => {
      const y = yearOfWall(w)
      if (!explicit.has(y)) correction.set(y, (correction.get(y) ?? 0) + d)
    }
    for (const w of points)
      if (w >= this.startWall && !this.exdates.has(w) && !denseHave(w)) add(w, 1)
    for (const w of this.exdates) if (w <= this.endWall && denseHave(w)) add(w, -1)
    for (let i = 0; i < years; i++) {
      const y = this.startYear + i
      let count: number
      if (explicit.has(y)) count = this.yearWalls(y).length
      else {
        const first = yearStartWall(y)
        let mask = 0
        const alive: Rule[] = []
        this.rules.forEach((r, j) => {
          if (r.lastWall >= first && dense.includes(r)) {
            mask |= 1 << j
            alive.push(r)
          }
        })
        count = alive.length === 0 ? 0 : this.cycleCount(mask, y, alive)
        count += correction.get(y) ?? 0
      }
      prefix[i + 1] = (prefix[i] as number) + count
    }
    this.prefix = prefix
    return prefix
  }

  /** How many walls lie before `wall`. */
  private countBefore(wall: number): number {
    if (wall <= this.startWall) return 0
    const prefix = this.table()
    if (wall > this.endWall) return prefix[prefix.length - 1] as number
    const y = yearOfWall(wall)
    const walls = this.yearWalls(y)
    let lo = 0
    let hi = walls.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if ((walls[mid] as number) < wall) lo = mid + 1
      else hi = mid
    }
    return (prefix[y - this.startYear] as number) + lo
  }

  list(from: number, to: number, limit: number): number[] {
    const out: number[] = []
    const lo = Math.max(from, this.startWall)
    const hi = Math.min(to, this.endWall)
    if (lo > hi) return out
    const prefix = this.table()
    for (let y = yearOfWall(lo); y <= yearOfWall(hi) && out.length < limit; y++) {
      const i = y - this.startYear
      if (prefix[i + 1] === prefix[i]) continue // an empty year: skip without expanding it
      for (const w of this.yearWalls(y)) {
        if (w > hi || out.length >= limit) break
        if (w >= lo) out.push(w)
      }
    }
    return out
  }

  count(from: number, to: number): number {
    if (from > to) return 0
    return this.countBefore(to + 1) - this.countBefore(from)
  }

  nth(from: number, n: number): number | undefined {
    const prefix = this.table()
    const target = this.countBefore(from) + n
    if (target >= (prefix[prefix.length - 1] as number)) return undefined
    // The year holding the target-th wall: the last i with prefix[i] ≤ target.
    let lo = 0
    let hi = prefix.length - 1
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1
      if ((prefix[mid] as number) <= target) lo = mid
      else hi = mid
    }
    return this.yearWalls(this.startYear + lo)[target - (prefix[lo] as number)]
  }

  has(wall: number): boolean {
    if (wall < this.startWall || wall > this.endWall || this.exdates.has(wall)) return false
    if (wall === this.startWall) return true
    return this.rdates.includes(wall) || this.rulesHave(wall)
  }
}
