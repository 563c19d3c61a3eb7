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
  it('splits the file at block magics into parts of equal compressed bits', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 60, max: 400 }), { maxLength: 40 }),
        fc.integer({ min: 2, max: 9 }),
        fc.integer({ min: 0, max: 7 }),
        (gaps, parts, shift) => {
          // blocks `gaps` bytes apart at a bit shift, the first after a 4-byte stream header
          const bits: number[] = []
          let at = 32 + shift
          for (const gap of gaps) {
            bits.push(at)
            at += gap * 8
          }
          const data = withMagics(bits, (at >>> 3) + 20)
          const magics = findMagics(data)
          const starts = Array.from({ length: parts + 1 }, (_, k) =>
            partStart(data, magics, k, parts),
          )
          expect(starts[0]).toBe(0)
          expect(starts[parts]).toBe(Number.POSITIVE_INFINITY)
          let blocks = 0
          for (let k = 0; k < parts; k++) {
            const from = starts[k]!
            const to = starts[k + 1]!
            expect(from).toBeLessThanOrEqual(to)
            blocks += bits.filter((at) => at >= from && at < to).length
            if (k === 0) continue
            expect(from === data.length * 8 || bits.includes(from), `part ${k}`).toBe(true)
            // no block start (nor the file's end) is nearer to the part's equal share
            const target = (data.length * 8 * k) / parts
            for (const other of [...bits, data.length * 8]) {
              expect(Math.abs(from - target)).toBeLessThanOrEqual(Math.abs(other - target))
            }
          }
          expect(blocks).toBe(gaps.length) // every block in one part
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    )
  })

  it('gives the lead as many blocks as the helper when they are alike', () => {
    // the lead stitches afterwards, but only once the helper is done: less would be idle time
    const bits = Array.from({ length: 12 }, (_, i) => 32 + i * 800)
    const data = withMagics(bits, 100 * 12 + 20)
    const at = partStart(data, findMagics(data), 1, 2)
    expect(bits.indexOf(at)).toBe(6)
  })
})
