import { propertyRuns } from '@kcore/db/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { narrow, type Probe } from '../src/series-list.js'

// The search that places a page of a list with series: on any monotone count it must return a
// bracket around the target with no more probes than about twice bisection's, and on the
// near-constant rates of real lists (series, evenly spread events) a handful.

const STEP = 1000

/** G(t) over sorted item starts: how many start before t. */
function countOf(starts: readonly number[]) {
  let probes = 0
  const G = (t: number) => {
    probes++
    let lo = 0
    let hi = starts.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((starts[mid] as number) < t) lo = mid + 1
      else hi = mid
    }
    return lo
  }
  return { G, probes: () => probes }
}

function search(starts: readonly number[], target: number, slack: number) {
  const { G, probes } = countOf(starts)
  const first = starts[0] as number
  const last = starts[starts.length - 1] as number
  const a: Probe = { t: first - STEP, g: 0 }
  const b: Probe = { t: last + STEP, g: starts.length }
  const [lo, hi] = narrow(G, target, target - slack / 2, [a, b], STEP, (x) => target - x.g <= slack)
  return { lo, hi, probes: probes(), width: (b.t - a.t) / STEP, G }
}

describe('narrow (the page search)', () => {
  it('brackets the target on any monotone count, within twice bisection’s probes', () => {
    // Clusters of ties, gaps and dense runs: starts as sums of steps 0 (a tie) to huge.
    const starts = fc
      .array(
        fc.oneof(
          fc.constant(0),
          fc.integer({ min: 1, max: 3 }),
          fc.integer({ min: 1, max: 3600 }),
          fc.integer({ min: 1, max: 10 ** 8 }),
        ),
        { minLength: 1, maxLength: 300 },
      )
      .map((gaps) => {
        let t = Date.UTC(2026, 0, 1) / STEP
        return gaps.map((g) => (t += g) * STEP)
      })
    fc.assert(
      fc.property(starts, fc.nat(), fc.constantFrom(0, 1, 64), (list, pick, slack) => {
        const target = pick % list.length
        const { lo, hi, probes, width, G } = search(list, target, slack)
        expect(lo.g).toBe(G(lo.t))
        expect(hi.g).toBe(G(hi.t))
        expect(lo.g).toBeLessThanOrEqual(target)
        expect(hi.g).toBeGreaterThan(target)
        expect(target - lo.g <= slack || hi.t - lo.t === STEP).toBe(true)
        expect(probes).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(width)) + 2)
      }),
      { numRuns: propertyRuns(2000, 500) },
    )
  })

  it('takes a handful of probes at near-constant rates (bisection: ~40)', () => {
    // 1,000 weekly series and 100 daily ones at random phases, plus 20,000 events spread
    // evenly at random over two years: deep targets with the list's slack.
    let seed = 29
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed / 2 ** 31
    }
    const from = Date.UTC(2026, 2, 1)
    const span = 730 * 86_400_000
    const starts: number[] = []
    for (let i = 0; i < 1100; i++) {
      const period = (i < 1000 ? 7 : 1) * 86_400_000
      for (let t = from + Math.floor(next() * period); t < from + span; t += period)
        starts.push(Math.floor(t / STEP) * STEP)
    }
    for (let i = 0; i < 20_000; i++) starts.push(Math.floor((from + next() * span) / STEP) * STEP)
    starts.sort((a, b) => a - b)
    for (const target of [4990, 50_000, starts.length - 20]) {
      const { probes } = search(starts, target, 64)
      expect(probes, `target ${target}`).toBeLessThanOrEqual(8)
    }
  })
})
