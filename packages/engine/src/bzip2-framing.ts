import { Buffer } from 'node:buffer'

/** The 48-bit magic that opens every bzip2 block (BCD pi). */
export const BLOCK_MAGIC = 0x314159265359
/** The 48-bit magic that ends a bzip2 stream (BCD sqrt(pi)), followed by the stream CRC. */
export const END_MAGIC = 0x177245385090
export const MAGIC_BITS = 48

/** Corrupt, truncated or unsupported bzip2 data. */
export class Bzip2Error extends Error {
  override name = 'Bzip2Error'
}

/**
 * `count` (≤ 32) bits of `data` from bit `bit` (most significant first), as an unsigned
 * number; bits past the end read as 0 (callers check lengths first).
 */
export function readBits(data: Uint8Array, bit: number, count: number): number {
  let value = 0
  let at = bit
  let left = count
  while (left > 0) {
    const byte = data[at >>> 3] ?? 0
    const offset = at & 7
    const take = Math.min(8 - offset, left)
    const bits = (byte >>> (8 - offset - take)) & ((1 << take) - 1)
    value = value * (1 << take) + bits
    at += take
    left -= take
  }
  return value
}

/** The 48 bits from `bit`, or -1 when fewer are left. */
export function readMagic(data: Uint8Array, bit: number): number {
  if (bit + MAGIC_BITS > data.length * 8) return -1
  return readBits(data, bit, 24) * 0x1000000 + readBits(data, bit + 24, 24)
}

/**
 * Every bit offset of `magic` in `data`, at any bit shift, ascending. A magic starting at bit
 * shift `s` of byte `i` covers bytes `i+1 … i+5` whole whatever `s` is: those five bytes are a
 * fixed needle per shift, found by the native `Buffer.indexOf`; the 48 bits are then verified.
 */
export function findMagic(data: Uint8Array, magic: number): number[] {
  const haystack = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  const found: number[] = []
  const high = Math.floor(magic / 0x1000000)
  const low = magic % 0x1000000
  for (let shift = 0; shift < 8; shift++) {
    // the magic's bits 8 - shift … 48 - shift, as 5 bytes
    const needle = Buffer.alloc(5)
    for (let k = 0; k < 5; k++) {
      const from = 8 - shift + 8 * k // bit index inside the 48-bit magic
      needle[k] = bitsOf(high, low, from, 8)
    }
    for (let at = haystack.indexOf(needle, 1); at >= 0; at = haystack.indexOf(needle, at + 1)) {
      const bit = (at - 1) * 8 + shift
      if (readMagic(data, bit) === magic) found.push(bit)
    }
  }
  return found.sort((a, b) => a - b)
}

function bitsOf(high: number, low: number, from: number, count: number): number {
  let value = 0
  for (let i = from; i < from + count; i++) {
    const bit = i < 24 ? (high >>> (23 - i)) & 1 : (low >>> (47 - i)) & 1
    value = (value << 1) | bit
  }
  return value
}

/**
 * Where blocks and stream ends may start: every block magic and end magic at any bit offset,
 * ascending. A match may be false (the pattern inside compressed data): only decoding tells.
 */
export function findMagics(data: Uint8Array): number[] {
  return [...findMagic(data, BLOCK_MAGIC), ...findMagic(data, END_MAGIC)].sort((a, b) => a - b)
}

/** The level (1…9) of a byte-aligned stream header `BZh1`…`BZh9` at byte `at`, or 0. */
export function streamLevelAt(data: Uint8Array, at: number): number {
  if (data[at] !== 0x42 || data[at + 1] !== 0x5a || data[at + 2] !== 0x68) return 0
  const level = (data[at + 3] ?? 0) - 0x30
  return level >= 1 && level <= 9 ? level : 0
}

/**
 * The level of the last stream header before bit `bit`: a `BZh1`…`BZh9` on a byte boundary
 * followed by a block or end magic (every stream starts so). What a part that starts inside
 * a stream must assume; the stitching checks the assumption against the header read by the
 * part before. 0 when none is found.
 */
export function levelBefore(data: Uint8Array, bit: number): number {
  const haystack = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  // (a negative offset would count from the end)
  const last = (bit >>> 3) - 4
  for (let at = last >= 0 ? haystack.lastIndexOf('BZh', last) : -1; at >= 0; ) {
    const level = streamLevelAt(data, at)
    const next = readMagic(data, (at + 4) * 8)
    if (level > 0 && (next === BLOCK_MAGIC || next === END_MAGIC)) return level
    at = at > 0 ? haystack.lastIndexOf('BZh', at - 1) : -1
  }
  return 0
}

/** A stream's CRC from its blocks' CRCs, in order: rotate left by one, then xor the next. */
export function combineBlockCrc(streamCrc: number, blockCrc: number): number {
  return (((streamCrc << 1) | (streamCrc >>> 31)) ^ blockCrc) >>> 0
}

/**
 * The most bits a level-`level` block (from its magic to the next magic) can take: 20-bit
 * codes for every symbol of a full block, all selectors and tables, the header. A candidate
 * end further away cannot be the block's end.
 */
export function maxBlockBits(level: number): number {
  const symbols = level * 100_000 + 2
  return (
    MAGIC_BITS + 32 + 1 + 24 + 16 + 256 + 3 + 15 + 18_002 * 7 + 6 * (5 + 258 * 41) + symbols * 20
  )
}
