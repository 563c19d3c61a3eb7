import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { partStart } from './as-rel-part.js'
import { BLOCK_MAGIC, END_MAGIC, findMagics, MAGIC_BITS } from './bzip2-framing.js'

/** Bytes holding block magics at the given bit offsets (and an end magic after them). */
function withMagics(blockBits: number[], length: number): Uint8Array {
  const data = new Uint8Array(length)
  const write = (at: number, magic: number) => {
    for (let k = 0; k < MAGIC_BITS; k++) {
      if (Math.floor(magic / 2 ** (MAGIC_BITS - 1 - k)) % 2) {
        data[(at + k) >>> 3]! |= 0x80 >>> ((at + k) & 7)
      }
    }
  }
  for (const at of blockBits) write(at, BLOCK_MAGIC)
  write(length * 8 - MAGIC_BITS - 40, END_MAGIC)
  return data
}

describe('partStart', () => {
  it('splits the block list: ascending starts at block magics, the lead taking the least', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 2, max: 9 }),
        fc.integer({ min: 0, max: 7 }),
        (blocks, parts, shift) => {
          // blocks 100 bytes apart at a bit shift, the first after a 4-byte stream header
          const bits = Array.from({ length: blocks }, (_, i) => 32 + i * 800 + shift)
          const data = withMagics(bits, 100 * blocks + 120)
          const magics = findMagics(data)
          const starts = Array.from({ length: parts + 1 }, (_, k) =>
            partStart(data, magics, k, parts),
          )
          expect(starts[0]).toBe(0)
          expect(starts[parts]).toBe(Number.POSITIVE_INFINITY)
          const counts: number[] = []
          for (let k = 0; k < parts; k++) {
            const from = starts[k]!
            const to = starts[k + 1]!
            if (k > 0)
              expect(from === data.length * 8 || bits.includes(from), `part ${k}`).toBe(true)
            expect(from).toBeLessThanOrEqual(to)
            counts.push(bits.filter((at) => at >= from && at < to).length)
          }
          expect(counts.reduce((a, b) => a + b, 0)).toBe(blocks) // every block in one part
          // the lead stitches afterwards: it never gets more blocks than a helper (rounding: 1)
          for (const count of counts.slice(1)) expect(counts[0]!).toBeLessThanOrEqual(count + 1)
          if (blocks >= 8 && parts === 2) expect(counts[0]!).toBeLessThan(counts[1]!)
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    )
  })
})
