import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { rankDrops } from './what-if-drops.js'

describe('rankDrops', () => {
  it('puts the largest drop first, ties by ASN, and leaves out removed and new ASes', () => {
    const ranked = rankDrops(
      [
        { asn: 3, before: 7, after: 6 },
        { asn: 174, before: 40, after: null },
        { asn: 9, before: 9, after: 4 },
        { asn: 2, before: 5, after: 4 },
        { asn: 64512, before: null, after: 1 },
        { asn: 8, before: 2, after: 3 },
      ],
      10,
    )
    expect(ranked.shown.map((d) => d.asn)).toEqual([9, 2, 3, 8])
    expect(ranked.more).toBe(0)
  })

  it('shows the first `limit` and counts the rest', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({
            asn: fc.nat(),
            before: fc.option(fc.integer({ min: 1, max: 50 }), { nil: null }),
            after: fc.option(fc.integer({ min: 1, max: 50 }), { nil: null }),
          }),
          { selector: (c) => c.asn, maxLength: 60 },
        ),
        fc.nat({ max: 70 }),
        (changes, limit) => {
          const { shown, more } = rankDrops(changes, limit)
          const kept = changes.filter((c) => c.before !== null && c.after !== null)
          expect(shown.length + more).toBe(kept.length)
          expect(shown.length).toBe(Math.min(limit, kept.length))
          for (let i = 1; i < shown.length; i++) {
            const [a, b] = [shown[i - 1], shown[i]] as [(typeof shown)[0], (typeof shown)[0]]
            const order = b.before - b.after - (a.before - a.after) || a.asn - b.asn
            expect(order).toBeLessThan(0)
          }
        },
      ),
    )
  })
})
