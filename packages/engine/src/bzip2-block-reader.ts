import { CRC_TABLE } from './bzip2-crc.js'

/** The 48-bit magic that opens every bzip2 block (BCD pi), as two 24-bit halves. */
export const BLOCK_MAGIC = [0x314159, 0x265359] as const
/** The 48-bit magic that ends a bzip2 stream (BCD sqrt(pi)), as two 24-bit halves. */
export const END_MAGIC = [0x177245, 0x385090] as const
/** The largest block, in symbols before the first run-length decoding (`BZh9`). */
export const MAX_BLOCK_SIZE = 900_000

const MAX_GROUPS = 6
const MAX_ALPHA = 258
const MAX_CODE_LENGTH = 20
const MAX_SELECTORS = 18_002
const GROUP_SIZE = 50
// Codes up to LOOKUP_BITS long decode with one table look-up; longer ones (rare: the encoder
// limits codes to 17 bits and gives short codes to frequent symbols) walk the lengths.
const LOOKUP_BITS = 10
const LOOKUP_SIZE = 1 << LOOKUP_BITS

/** Corrupt, truncated or unsupported bzip2 data. */
export class Bzip2Error extends Error {
  override name = 'Bzip2Error'
}

/**
 * Where decoded bytes go: a fixed buffer handed to `push` whenever it fills (and by `flush`).
 * The buffer is reused afterwards, so `push` copies what it keeps. When `push` throws, the
 * error is kept and nothing more is pushed: the block's CRC is checked first (corrupt data
 * reports as corrupt, not as whatever its garbage made `push` throw), then `rethrow` raises it.
 */
export class ChunkWriter {
  readonly buffer: Uint8Array
  length = 0
  #push: ((chunk: Uint8Array) => void) | undefined
  #failed = false
  #error: unknown

  /** `push` undefined: a writer that discards (verifies a block's CRC without output). */
  constructor(push: ((chunk: Uint8Array) => void) | undefined, size = 1 << 17) {
    this.buffer = new Uint8Array(size)
    this.#push = push
  }

  /** Hands the buffered bytes to `push` (called by the decoder when the buffer is full). */
  flush(): void {
    const length = this.length
    this.length = 0
    if (length === 0 || this.#push === undefined || this.#failed) return
    try {
      this.#push(length === this.buffer.length ? this.buffer : this.buffer.subarray(0, length))
    } catch (error) {
      this.#failed = true
      this.#error = error
    }
  }

  /** Throws what `push` threw, if it did. */
  rethrow(): void {
    if (this.#failed) throw this.#error
  }
}

/**
 * A bit reader over one buffer of bzip2 data and the decoder of one block at a time: Huffman
 * and move-to-front decoding into `tt`, the inverse Burrows–Wheeler transform as a linked list
 * threaded through `tt` (as libbzip2 does), and the final run-length decoding with the block
 * CRC on the way out. Scratch arrays are allocated once per reader and reused for every block.
 *
 * Reading is strict: every field is range-checked, so garbage (a false block magic, a corrupt
 * file) fails with a {@link Bzip2Error} instead of reading out of bounds, and no decoded byte
 * is trusted before the block's CRC says so.
 */
export class Bzip2BlockReader {
  readonly data: Uint8Array
  #pos = 0
  #buf = 0
  #live = 0
  #origPtr = 0
  #size = 0
  readonly #tt = new Uint32Array(MAX_BLOCK_SIZE)
  readonly #counts = new Int32Array(256)
  readonly #symbols = new Uint8Array(256)
  readonly #mtf = new Uint8Array(256)
  readonly #selectors = new Uint8Array(MAX_SELECTORS)
  readonly #lengths = new Uint8Array(MAX_ALPHA)
  readonly #lookup = new Int32Array(MAX_GROUPS * LOOKUP_SIZE)
  // per group and code length: first code, number of codes, where they start in #sorted
  readonly #firstCode = new Int32Array(MAX_GROUPS * (MAX_CODE_LENGTH + 1))
  readonly #codeCount = new Int32Array(MAX_GROUPS * (MAX_CODE_LENGTH + 1))
  readonly #sortedStart = new Int32Array(MAX_GROUPS * (MAX_CODE_LENGTH + 1))
  readonly #sorted = new Uint16Array(MAX_GROUPS * MAX_ALPHA)

  constructor(data: Uint8Array) {
    this.data = data
  }

  /** The offset, in bits from the start of `data`, of the next bit to read. */
  get bitPosition(): number {
    return this.#pos * 8 - this.#live
  }

  /** The block decoded last: its length in symbols (before run-length decoding). */
  get blockSize(): number {
    return this.#size
  }

  seek(bit: number): void {
    this.#pos = Math.floor(bit / 8)
    this.#buf = 0
    this.#live = 0
    if (bit % 8) this.bits(bit % 8)
  }

  /** Reads `n` ≤ 24 bits, most significant first. */
  bits(n: number): number {
    let live = this.#live
    let buf = this.#buf
    while (live < n) {
      if (this.#pos >= this.data.length) throw new Bzip2Error('unexpected end of bzip2 data')
      buf = (buf << 8) | this.data[this.#pos++]!
      live += 8
    }
    live -= n
    this.#live = live
    this.#buf = buf
    return (buf >>> live) & ((1 << n) - 1)
  }

  bits32(): number {
    return ((this.bits(16) << 16) | this.bits(16)) >>> 0
  }

  /** Skips to the next byte boundary (a stream's end is padded to one). */
  alignToByte(): void {
    this.#live -= this.#live % 8
  }

  /**
   * Reads one block, the reader standing just after its magic; returns the CRC stored in the
   * block. Its bytes come out of {@link writeBlock}.
   */
  readBlock(): number {
    const storedCrc = this.bits32()
    if (this.bits(1)) {
      throw new Bzip2Error('randomised bzip2 block (written by bzip2 before 0.9.5): not supported')
    }
    const origPtr = this.bits(24)
    const symbols = this.#symbols
    let symbolCount = 0
    const used16 = this.bits(16)
    for (let i = 0; i < 16; i++) {
      if (used16 & (0x8000 >>> i)) {
        const used = this.bits(16)
        for (let j = 0; j < 16; j++) if (used & (0x8000 >>> j)) symbols[symbolCount++] = i * 16 + j
      }
    }
    if (symbolCount === 0) throw new Bzip2Error('bzip2 block uses no byte values')
    const alphabetSize = symbolCount + 2
    const groupCount = this.bits(3)
    if (groupCount < 2 || groupCount > MAX_GROUPS) {
      throw new Bzip2Error(`bad bzip2 Huffman table count ${groupCount}`)
    }
    const selectorCount = this.bits(15)
    if (selectorCount === 0) throw new Bzip2Error('bzip2 block without selectors')
    const selectors = this.#selectors
    let groupOrder = 0x543210 // the move-to-front list of the (≤ 6) tables, 4 bits each
    for (let i = 0; i < selectorCount; i++) {
      let j = 0
      while (this.bits(1)) {
        if (++j >= groupCount) throw new Bzip2Error('bad bzip2 selector')
      }
      const group = (groupOrder >>> (j * 4)) & 15
      const below = groupOrder & ((1 << (j * 4)) - 1)
      groupOrder = (groupOrder & ~((1 << (j * 4 + 4)) - 1)) | (below << 4) | group
      // as libbzip2 ≥ 1.0.8: selectors past the maximum are read and ignored
      if (i < MAX_SELECTORS) selectors[i] = group
    }
    const usableSelectors = Math.min(selectorCount, MAX_SELECTORS)
    for (let group = 0; group < groupCount; group++) {
      const lengths = this.#lengths
      let length = this.bits(5)
      for (let symbol = 0; symbol < alphabetSize; symbol++) {
        for (;;) {
          if (length < 1 || length > MAX_CODE_LENGTH) {
            throw new Bzip2Error(`bad bzip2 code length ${length}`)
          }
          if (!this.bits(1)) break
          length += this.bits(1) ? -1 : 1
        }
        lengths[symbol] = length
      }
      this.#buildCode(group, alphabetSize)
    }
    this.#decodeSymbols(selectors, usableSelectors, symbolCount)
    if (this.bitPosition > this.data.length * 8) {
      throw new Bzip2Error('unexpected end of bzip2 data')
    }
    if (origPtr >= this.#size) {
      throw new Bzip2Error(`bad bzip2 block origin ${origPtr} (block of ${this.#size})`)
    }
    this.#origPtr = origPtr
    this.#inverseBwt()
    return storedCrc
  }

  /** Canonical Huffman code of one table from `#lengths`: the look-up table and, for long
   * codes, the first code and sorted symbols per length. */
  #buildCode(group: number, alphabetSize: number): void {
    const lengths = this.#lengths
    const base = group * (MAX_CODE_LENGTH + 1)
    const count = this.#codeCount
    const first = this.#firstCode
    const start = this.#sortedStart
    count.fill(0, base, base + MAX_CODE_LENGTH + 1)
    for (let s = 0; s < alphabetSize; s++) count[base + lengths[s]!]!++
    let left = 1
    let code = 0
    let sortedAt = group * MAX_ALPHA
    for (let length = 1; length <= MAX_CODE_LENGTH; length++) {
      left = left * 2 - count[base + length]!
      if (left < 0) throw new Bzip2Error('bad bzip2 Huffman code (over-subscribed)')
      first[base + length] = code
      start[base + length] = sortedAt
      sortedAt += count[base + length]!
      code = (code + count[base + length]!) << 1
    }
    // symbols sorted by code length, then by value: the order canonical codes are handed out
    const next = start.slice(base, base + MAX_CODE_LENGTH + 1)
    const sorted = this.#sorted
    for (let s = 0; s < alphabetSize; s++) sorted[next[lengths[s]!]!++] = s
    const lookup = this.#lookup
    const lookupBase = group * LOOKUP_SIZE
    lookup.fill(0, lookupBase, lookupBase + LOOKUP_SIZE)
    for (let length = 1; length <= LOOKUP_BITS; length++) {
      const n = count[base + length]!
      const at = start[base + length]!
      const span = 1 << (LOOKUP_BITS - length)
      for (let k = 0; k < n; k++) {
        const from = lookupBase + ((first[base + length]! + k) << (LOOKUP_BITS - length))
        lookup.fill((sorted[at + k]! << 5) | length, from, from + span)
      }
    }
  }

  /** Huffman, run-length (RUNA/RUNB) and move-to-front decoding of the block into `#tt`. */
  #decodeSymbols(selectors: Uint8Array, selectorCount: number, symbolCount: number): void {
    const data = this.data
    const dataLength = data.length
    const tt = this.#tt
    const counts = this.#counts
    const mtf = this.#mtf
    const lookup = this.#lookup
    const first = this.#firstCode
    const codeCount = this.#codeCount
    const sortedStart = this.#sortedStart
    const sorted = this.#sorted
    counts.fill(0)
    for (let i = 0; i < symbolCount; i++) mtf[i] = this.#symbols[i]!
    const endOfBlock = symbolCount + 1
    let pos = this.#pos
    let buf = this.#buf
    let live = this.#live
    let size = 0
    let run = 0
    let runWeight = 1
    let selector = 0
    let left = 0
    let lookupBase = 0
    let codeBase = 0
    for (;;) {
      if (left === 0) {
        if (selector >= selectorCount) throw new Bzip2Error('bzip2 block ran out of selectors')
        const group = selectors[selector++]!
        lookupBase = group * LOOKUP_SIZE
        codeBase = group * (MAX_CODE_LENGTH + 1)
        left = GROUP_SIZE
      }
      left--
      // past the end, zeros are shifted in; the position is checked once the block is read
      while (live < MAX_CODE_LENGTH) {
        buf = (buf << 8) | (pos < dataLength ? data[pos]! : 0)
        pos++
        live += 8
      }
      let symbol: number
      const entry = lookup[lookupBase | ((buf >>> (live - LOOKUP_BITS)) & (LOOKUP_SIZE - 1))]!
      if (entry !== 0) {
        live -= entry & 31
        symbol = entry >>> 5
      } else {
        symbol = -1
        for (let length = LOOKUP_BITS + 1; length <= MAX_CODE_LENGTH; length++) {
          const code = (buf >>> (live - length)) & ((1 << length) - 1)
          const offset = code - first[codeBase + length]!
          if (offset >= 0 && offset < codeCount[codeBase + length]!) {
            live -= length
            symbol = sorted[sortedStart[codeBase + length]! + offset]!
            break
          }
        }
        if (symbol < 0) throw new Bzip2Error('bad bzip2 Huffman code')
      }
      if (symbol <= 1) {
        // RUNA (0) and RUNB (1): a run length in bijective base 2, least significant first
        if (runWeight > MAX_BLOCK_SIZE) throw new Bzip2Error('bzip2 run too long')
        run += runWeight << symbol
        runWeight <<= 1
        continue
      }
      if (run > 0) {
        if (size + run > MAX_BLOCK_SIZE) throw new Bzip2Error('bzip2 block too long')
        const byte = mtf[0]!
        counts[byte]! += run
        for (const end = size + run; size < end; size++) tt[size] = byte
        run = 0
        runWeight = 1
      }
      if (symbol === endOfBlock) break
      if (size >= MAX_BLOCK_SIZE) throw new Bzip2Error('bzip2 block too long')
      let k = symbol - 1
      const byte = mtf[k]!
      for (; k > 0; k--) mtf[k] = mtf[k - 1]!
      mtf[0] = byte
      counts[byte]!++
      tt[size++] = byte
    }
    this.#pos = pos
    this.#buf = buf
    this.#live = live
    this.#size = size
  }

  /** Links every position of `#tt` to its successor in the original text (bits 8 and up). */
  #inverseBwt(): void {
    const tt = this.#tt
    const counts = this.#counts
    const size = this.#size
    // counts become each byte's first position in the sorted column
    let sum = 0
    for (let b = 0; b < 256; b++) {
      const n = counts[b]!
      counts[b] = sum
      sum += n
    }
    for (let i = 0; i < size; i++) tt[counts[tt[i]! & 0xff]!++]! |= i << 8
  }

  /**
   * Writes the block read last to `writer` (undoing the first run-length encoding: four equal
   * bytes are followed by a count of further repeats) and returns its CRC. May be called again
   * for the same block (a first pass with a discarding writer verifies it).
   */
  writeBlock(writer: ChunkWriter): number {
    const tt = this.#tt
    const table = CRC_TABLE // a local: an imported binding may be read through a getter
    const out = writer.buffer
    const capacity = out.length
    let o = writer.length
    let crc = -1
    let last = -1
    let repeats = 0
    let t = tt[this.#origPtr]! >>> 8
    for (let k = this.#size; k > 0; k--) {
      const entry = tt[t]!
      t = entry >>> 8
      const byte = entry & 0xff
      if (repeats === 4) {
        for (let j = byte; j > 0; j--) {
          out[o++] = last
          crc = (crc << 8) ^ table[(crc >>> 24) ^ last]!
          if (o === capacity) {
            writer.length = o
            writer.flush()
            o = 0
          }
        }
        repeats = 0
        continue
      }
      if (byte === last) repeats++
      else {
        repeats = 1
        last = byte
      }
      out[o++] = byte
      crc = (crc << 8) ^ table[(crc >>> 24) ^ byte]!
      if (o === capacity) {
        writer.length = o
        writer.flush()
        o = 0
      }
    }
    writer.length = o
    return ~crc >>> 0
  }
}
