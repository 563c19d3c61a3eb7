import { LibraryRule } from './library-rule.js'
import type { CheckedRecurrence } from './recurrence-input.js'
import type { WallSet } from './wall-set.js'

const DAY = 86400

/**
 * The plain way to a WallSet: ask the library for every occurrence in the window. Exact and
 * slow for big windows (the library yields some thousand occurrences a second); the reference
 * the fast set is checked against.
 */
export class EnumeratedWallSet implements WallSet {
  private readonly rules: { lib: LibraryRule; lastWall: number }[]
  private readonly exdates: Set<number>

  constructor(
    private readonly checked: CheckedRecurrence,
    private readonly startWall: number,
    private readonly endWall: number,
    allDay: boolean,
  ) {
    this.rules = checked.rules.map((r) => ({
      lib: new LibraryRule(withoutUntil(r.text), startWall, allDay),
      lastWall: Math.min(endWall, r.untilWall ?? endWall),
    }))
    this.exdates = new Set(checked.exdates)
  }

  /** Every wall in [from, to] (already clipped), no limit. */
  private window(from: number, to: number): number[] {
    const walls = new Set<number>()
    if (from <= this.startWall && this.startWall <= to) walls.add(this.startWall)
    for (const r of this.rules) {
      if (from > r.lastWall) continue
      for (const w of r.lib.between(from, Math.min(to, r.lastWall))) walls.add(w)
    }
    for (const w of this.checked.rdates) if (from <= w && w <= to) walls.add(w)
    return [...walls].filter((w) => !this.exdates.has(w)).sort((a, b) => a - b)
  }

  list(from: number, to: number, limit: number): number[] {
    const out: number[] = []
    let lo = Math.max(from, this.startWall)
    const hi = Math.min(to, this.endWall)
    // Growing chunks: a small limit over a long window asks the library for little.
    for (let span = 62 * DAY; lo <= hi && out.length < limit; span *= 2) {
      const chunkEnd = Math.min(hi, lo + span - 1)
      out.push(...this.window(lo, chunkEnd))
      lo = chunkEnd + 1
    }
    return out.slice(0, limit)
  }

  count(from: number, to: number): number {
    return this.list(from, to, Number.POSITIVE_INFINITY).length
  }

  nth(from: number, n: number): number | undefined {
    return this.list(from, this.endWall, n + 1)[n]
  }

  has(wall: number): boolean {
    return this.list(wall, wall, 1).length === 1
  }
}

/** The rule without UNTIL: UNTIL bounds instants, which `lastWall` carries. */
export const withoutUntil = (rule: string): string =>
  rule
    .split(';')
    .filter((p) => !p.startsWith('UNTIL='))
    .join(';')
