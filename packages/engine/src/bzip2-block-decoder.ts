import Bzip2 from '@foxglove/wasm-bz2'
import { Bzip2Error, END_MAGIC, MAGIC_BITS, readBits } from './bzip2-framing.js'

let loading: Promise<Bzip2BlockDecoder> | undefined

/**
 * The decoder of this thread: libbzip2 compiled to WebAssembly (`@foxglove/wasm-bz2`),
 * compiled once per thread on first use and reused.
 */
export function loadBzip2BlockDecoder(): Promise<Bzip2BlockDecoder> {
  loading ??= Bzip2.init().then((library) => new Bzip2BlockDecoder(library))
  return loading
}

/** libbzip2's BZ_OUTBUFF_FULL: the output did not fit in the buffer given. */
const OUTPUT_FULL = /failed: -8\b/

/** What decoding one block gave: its text, or `tooLong` when it exceeds the room allowed. */
export type BlockText = { text: Uint8Array; tooLong?: never } | { text?: never; tooLong: true }

/**
 * Decodes one bzip2 block at a time with libbzip2: the block's bits (from its magic to where the
 * next magic starts) are wrapped into a stream of that one block (`BZh` + level, the block
 * realigned to a byte, the end magic, the stream CRC, which for one block is the block's CRC),
 * so the library checks the block's structure and CRC, and that it ends exactly there.
 */
export class Bzip2BlockDecoder {
  readonly #library: Bzip2

  constructor(library: Bzip2) {
    this.#library = library
  }

  /**
   * The text of the block at bits `[startBit, endBit)` of a level-`level` stream, at most `room`
   * bytes of it (`tooLong` beyond). The output size is not known in advance: the first try
   * allows the level's block size plus a margin (text rarely grows in bzip2's first run-length
   * stage), the second the worst case of that stage (a 5-byte run code gives 255 bytes).
   *
   * @throws {Bzip2Error} when the bits are not exactly one sound block (corrupt data, or a
   * false magic taken for a block boundary).
   */
  decode(
    data: Uint8Array,
    startBit: number,
    endBit: number,
    level: number,
    room: number,
  ): BlockText {
    const stream = oneBlockStream(data, startBit, endBit, level)
    const symbols = level * 100_000
    const sizes = [symbols + (symbols >>> 3), symbols * 51]
    for (const size of sizes) {
      const limit = Math.min(size, room)
      try {
        return { text: this.#library.decompress(stream, Math.max(1, limit)) }
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        if (!OUTPUT_FULL.test(message)) throw new Bzip2Error(`bad bzip2 block (${message})`)
        if (limit === room) return { tooLong: true }
      }
    }
    throw new Bzip2Error('bzip2 block longer than its level allows')
  }
}

/**
 * A bzip2 stream holding only the block at bits `[startBit, endBit)` of `data` (magic
 * included): header, the block shifted to a byte boundary, end magic, stream CRC, padding.
 */
export function oneBlockStream(
  data: Uint8Array,
  startBit: number,
  endBit: number,
  level: number,
): Uint8Array {
  const blockBits = endBit - startBit
  const out = new Uint8Array(4 + Math.ceil((blockBits + MAGIC_BITS + 32) / 8))
  out.set([0x42, 0x5a, 0x68, 0x30 + level])
  const shift = startBit & 7
  const from = startBit >>> 3
  const whole = blockBits >>> 3
  if (shift === 0) out.set(data.subarray(from, from + whole), 4)
  else {
    for (let i = 0; i < whole; i++) {
      out[4 + i] = (data[from + i]! << shift) | (data[from + i + 1]! >>> (8 - shift))
    }
  }
  // the block's last bits (fewer than 8), then the end magic and the CRC, bit by bit
  let bit = (4 + whole) * 8
  const put = (value: number, count: number) => {
    for (let k = count - 1; k >= 0; k--) {
      if (Math.floor(value / 2 ** k) % 2 === 1) out[bit >>> 3]! |= 0x80 >>> (bit & 7)
      bit++
    }
  }
  put(readBits(data, startBit + whole * 8, blockBits & 7), blockBits & 7)
  put(END_MAGIC, MAGIC_BITS)
  put(readBits(data, startBit + MAGIC_BITS, 32), 32)
  return out
}
