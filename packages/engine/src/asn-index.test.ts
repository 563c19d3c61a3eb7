import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { asnIndex, SORTED_BELOW } from './asn-index.js'

describe('asnIndex', () => {
  // short lists are numbered by sorting, longer ones through the direct and hash tables
  it.each([
    ['short', 0, SORTED_BELOW - 1],
    ['long', SORTED_BELOW, 3000],
  ])(
    'numbers the distinct ASNs of a %s list in ascending order, every value mapped',
    (_, minLength, maxLength) => {
      fc.assert(
        fc.property(
          fc.array(
            fc.oneof(
              fc.integer({ min: 0, max: 50 }),
              fc.nat({ max: 0xffffffff }),
              // both sides of the direct table's end (2^19), and the largest ASN
              fc.integer({ min: (1 << 19) - 3, max: (1 << 19) + 3 }),
              fc.constantFrom(0xffffffff, 0xfffffffe),
            ),
            { minLength, maxLength, size: 'max' },
          ),
          (list) => {
            const indices = new Uint32Array(list)
            const asns = asnIndex(indices)
            expect(Array.from(asns)).toEqual([...new Set(list)].sort((a, b) => a - b))
            // one comparison of the whole mapping (an expect per value costs more than the work)
            expect(Array.from(indices, (i) => asns[i])).toEqual(list)
          },
        ),
        { numRuns: minLength === 0 ? 200 : 50 },
      )
    },
  )

  it('grows past its first table and copes with colliding keys', () => {
    // multiples of 2^20 share their low bits; 50k distinct values force several growths
    const values = new Uint32Array(100_000)
    for (let i = 0; i < values.length; i++) values[i] = ((i % 50_000) * 1_048_576 + (i % 7)) >>> 0
    const indices = values.slice()
    const asns = asnIndex(indices)
    expect(asns.length).toBe(new Set(values).size)
    expect(asns.every((asn, i) => i === 0 || asn > asns[i - 1]!)).toBe(true)
    expect(Array.from(indices, (i) => asns[i]!)).toEqual(Array.from(values))
  })
})
