import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  BLOCK_MAGIC,
  END_MAGIC,
  findMagic,
  findMagics,
  levelBefore,
  MAGIC_BITS,
  readBits,
} from './bzip2-framing.js'

/** Every bit offset of `magic`, tried one bit at a time: the reference for the native search. */
function naiveFind(data: Uint8Array, magic: number): number[] {
  const found: number[] = []
  for (let bit = 0; bit + MAGIC_BITS <= data.length * 8; bit++) {
    if (readBits(data, bit, 24) * 0x1000000 + readBits(data, bit + 24, 24) === magic) {
      found.push(bit)
    }
  }
  return found
}

/** `data` with the 48 bits of `magic` written at bit `at`. */
function writeMagic(data: Uint8Array, at: number, magic: number): void {
  for (let k = 0; k < MAGIC_BITS; k++) {
    const bit = Math.floor(magic / 2 ** (MAGIC_BITS - 1 - k)) % 2
    const i = (at + k) >>> 3
    const mask = 0x80 >>> ((at + k) & 7)
    data[i] = bit ? data[i]! | mask : data[i]! & ~mask
  }
}

describe('bzip2 framing', () => {
  it('finds every block and end magic at any bit offset, as a bit-by-bit search does', () => {
    fc.assert(
      fc.property(
        // short buffers (magics at both ends, overlapping) and longer ones
        fc.integer({ min: 0, max: 400 }),
        fc.array(
          fc.record({
            // biased to the start, the very end and every bit shift
            at: fc.oneof(fc.integer({ min: 0, max: 16 }), fc.nat(), fc.constant(-1)),
            end: fc.boolean(),
          }),
          { maxLength: 8 },
        ),
        fc.integer(),
        (length, writes, seed) => {
          const data = new Uint8Array(length)
          let state = seed
          for (let i = 0; i < length; i++) {
            state = (Math.imul(state, 1103515245) + 12345) | 0
            data[i] = state >>> 24
          }
          const room = length * 8 - MAGIC_BITS
          for (const { at, end } of writes) {
            if (room < 0) break
            const bit = at < 0 ? room : at % (room + 1)
            writeMagic(data, bit, end ? END_MAGIC : BLOCK_MAGIC)
          }
          expect(findMagic(data, BLOCK_MAGIC)).toEqual(naiveFind(data, BLOCK_MAGIC))
          expect(findMagic(data, END_MAGIC)).toEqual(naiveFind(data, END_MAGIC))
          expect(findMagics(data)).toEqual(
            [...naiveFind(data, BLOCK_MAGIC), ...naiveFind(data, END_MAGIC)].sort((a, b) => a - b),
          )
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    )
  })

  it('finds magics in a view into a larger buffer', () => {
    const whole = new Uint8Array(64)
    writeMagic(whole, 8 * 20 + 3, BLOCK_MAGIC)
    expect(findMagic(whole.subarray(10, 40), BLOCK_MAGIC)).toEqual([8 * 10 + 3])
  })

  it('takes the level of the last stream header followed by a magic', () => {
    const data = new Uint8Array(40)
    data.set([0x42, 0x5a, 0x68, 0x33]) // BZh3
    writeMagic(data, 32, BLOCK_MAGIC)
    data.set([0x42, 0x5a, 0x68, 0x37], 20) // BZh7, not followed by a magic: not a header
    expect(levelBefore(data, 8 * 30)).toBe(3)
    writeMagic(data, 8 * 24, END_MAGIC) // now it is one (an empty stream)
    expect(levelBefore(data, 8 * 31)).toBe(7)
    expect(levelBefore(data, 8 * 24)).toBe(7) // the stream's first magic follows its header
    expect(levelBefore(data, 8 * 24 - 1)).toBe(3) // a header counts only before the bit
    expect(levelBefore(data, 8 * 3)).toBe(0)
  })
})
