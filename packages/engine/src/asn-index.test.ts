import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { asnIndex } from './asn-index.js'

describe('asnIndex', () => {
  it('numbers the distinct ASNs in ascending order and maps every value to its number', () => {
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
          { maxLength: 3000 },
        ),
        (list) => {
          const indices = new Uint32Array(list)
          const asns = asnIndex(indices)
          expect(Array.from(asns)).toEqual([...new Set(list)].sort((a, b) => a - b))
          for (let i = 0; i < list.length; i++) expect(asns[indices[i]!]).toBe(list[i])
        },
      ),
      { numRuns: 200 },
    )
  })

  it('grows past its first table and copes with colliding keys', () => {
    // multiples of 2^20 share their low bits; 50k distinct values force several growths
    const values = new Uint32Array(100_000)
    for (let i = 0; i < values.length; i++) values[i] = ((i % 50_000) * 1_048_576 + (i % 7)) >>> 0
    const indices = values.slice()
    const asns = asnIndex(indices)
    expect(asns.length).toBe(new Set(values).size)
    for (let i = 1; i < asns.length; i++) expect(asns[i]!).toBeGreaterThan(asns[i - 1]!)
    for (let i = 0; i < values.length; i++) expect(asns[indices[i]!]).toBe(values[i])
  })
})
