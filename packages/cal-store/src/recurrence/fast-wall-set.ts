import { withoutUntil } from './enumerated-wall-set.js'
import { LibraryRule } from './library-rule.js'
import type { CheckedRecurrence } from './recurrence-input.js'
import { RuleUnits, yearOfWall, yearStartWall } from './rule-units.js'
import type { WallSet } from './wall-set.js'

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))

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
      const text = withoutUntil(r.text)
        .split(';')
        .filter((p) => !p.startsWith('COUNT='))
        .join(';')
      const units = new RuleUnits(new LibraryRule(text, startWall, allDay), r.parts, startWall)
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
        y === this.startYear ? rule.units.countInYear(y) : this.cycleCount(1 << index, y, [rule])
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

  /** Distinct walls of `rules` (unbounded) in year y ≥ start year + 1, from their cycle. */
  private cycleCount(mask: number, y: number, rules: Rule[]): number {
    let table = this.cycles.get(mask)
    if (!table) {
      let cycle = 1
      for (const r of rules) cycle = (cycle / gcd(cycle, r.units.cycleYears)) * r.units.cycleYears
      const length = Math.max(0, Math.min(cycle, this.lastYear - this.startYear))
      table = new Int32Array(length)
      for (let i = 0; i < length; i++) {
        const yy = this.startYear + 1 + i
        if (rules.length === 1) table[i] = rules[0]?.units.countInYear(yy) ?? 0
        else {
          const walls: number[] = []
          for (const r of rules) r.units.wallsInYear(yy, walls)
          table[i] = new Set(walls).size
        }
      }
      this.cycles.set(mask, table)
    }
    return table[(y - this.startYear - 1) % table.length] ?? 0
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

  /** prefix[i]: walls in the years before startYear + i. */
  private table(): Float64Array {
    if (this.prefix) return this.prefix
    const years = this.lastYear - this.startYear + 1
    const prefix = new Float64Array(years + 1)
    // Years whose count the cycles cannot give: the start, each rule's last year, and
    // corrections for rdates and exdates (counted against the rules).
    const explicit = new Set([this.startYear, ...this.rules.map((r) => yearOfWall(r.lastWall))])
    const correction = new Map<number, number>()
    const add = (w: number, d: number) => {
      const y = yearOfWall(w)
      if (!explicit.has(y)) correction.set(y, (correction.get(y) ?? 0) + d)
    }
    for (const w of this.rdates) if (!this.exdates.has(w) && !this.rulesHave(w)) add(w, 1)
    for (const w of this.exdates) if (w <= this.endWall && this.rulesHave(w)) add(w, -1)
    for (let i = 0; i < years; i++) {
      const y = this.startYear + i
      let count: number
      if (explicit.has(y)) count = this.yearWalls(y).length
      else {
        const first = yearStartWall(y)
        let mask = 0
        const alive: Rule[] = []
        this.rules.forEach((r, j) => {
          if (r.lastWall >= first) {
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
