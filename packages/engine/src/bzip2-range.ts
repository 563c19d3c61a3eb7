import {
  BLOCK_MAGIC,
  Bzip2BlockReader,
  Bzip2Error,
  ChunkWriter,
  END_MAGIC,
} from './bzip2-block-reader.js'
import { combineBlockCrc } from './bzip2-crc.js'

/**
 * What a range of bzip2 data held, in order: stream headers (block size level), blocks (their
 * CRC, already checked against their bytes, and size) and stream ends (the stored stream CRC).
 * The stream CRCs and levels are checked over the concatenated items of all ranges
 * ({@link checkBzip2Streams}), since a range may start in the middle of a stream.
 */
export type Bzip2Item =
  | { kind: 'start'; level: number }
  | { kind: 'block'; crc: number; size: number }
  | { kind: 'end'; crc: number }

/** The blocks of one range: where the first started and where the range stopped, in bits. */
export interface Bzip2Range {
  startBit: number
  endBit: number
  items: Bzip2Item[]
}

const MAGIC_BITS = 48
const MAGIC = 0x314159265359n
// For the byte after the one a magic starts in (fully covered by the magic whatever its bit
// shift): which shifts could put a magic there. Most bytes rule every shift out at once.
const SHIFTS_BY_SECOND_BYTE = (() => {
  const table = new Uint8Array(256)
  for (let shift = 0; shift < 8; shift++) {
    const second = Number((MAGIC >> BigInt(MAGIC_BITS - 16 + shift)) & 0xffn)
    table[second]! |= 1 << shift
  }
  return table
})()

/**
 * The bit offset of the first block magic (0x314159265359) at or after bit `fromBit`, at any
 * bit shift, or -1. A match may be false (the pattern inside compressed data): only decoding
 * the block and its CRC tell.
 */
export function findBlockMagic(data: Uint8Array, fromBit: number): number {
  const [high, low] = BLOCK_MAGIC
  const totalBits = data.length * 8
  for (let i = Math.floor(fromBit / 8); i * 8 + MAGIC_BITS <= totalBits; i++) {
    const shifts = SHIFTS_BY_SECOND_BYTE[data[i + 1]!]!
    if (shifts === 0) continue
    // bytes i … i+6 hold the 48 bits at every shift 0…7 (bytes past the end read as 0)
    const head = (data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!
    const next = data[i + 3]!
    const tail = (next << 16) | ((data[i + 4] ?? 0) << 8) | (data[i + 5] ?? 0)
    const last = data[i + 6] ?? 0
    for (let shift = 0; shift < 8; shift++) {
      if ((shifts & (1 << shift)) === 0) continue
      const bit = i * 8 + shift
      if (bit < fromBit) continue
      if (bit + MAGIC_BITS > totalBits) return -1
      const first24 = ((head << shift) | (next >>> (8 - shift))) & 0xffffff
      const second24 = ((tail << shift) | (last >>> (8 - shift))) & 0xffffff
      if (first24 === high && second24 === low) return bit
    }
  }
  return -1
}

/**
 * Decodes the bzip2 blocks of `data` that start in bytes `[fromByte, toByte)`, writing their
 * bytes to `writer` in order. The range stops at the first block that starts at or after
 * `toByte` (it still reads a stream end and the next stream's header on its way).
 *
 * `fromByte` 0 reads from the first stream header. Otherwise the range starts at the first
 * block magic at or after `fromByte` whose block decodes and matches its CRC, checked before
 * any of its bytes are written; a false magic is skipped. A range that starts there at or after
 * `toByte`, or finds no block, is empty (`startBit === endBit`).
 *
 * Ranges that split a file decode the same blocks as one range over the whole file exactly
 * when each range's `endBit` equals the next one's `startBit`: the caller checks that.
 *
 * @throws {Bzip2Error} on corrupt or truncated data; what `writer`'s `push` threw.
 */
export function decodeBzip2Range(
  data: Uint8Array,
  fromByte: number,
  toByte: number,
  writer: ChunkWriter,
): Bzip2Range {
  const reader = new Bzip2BlockReader(data)
  const toBit = toByte * 8
  const items: Bzip2Item[] = []
  let startBit: number
  if (fromByte === 0) {
    startBit = 0
    items.push({ kind: 'start', level: readStreamHeader(reader) })
  } else {
    const first = firstSoundBlock(reader, fromByte * 8)
    if (first === undefined) return { startBit: data.length * 8, endBit: data.length * 8, items }
    startBit = first.at
    if (startBit >= toBit) return { startBit, endBit: startBit, items }
    // its CRC was checked by a first pass that wrote nothing: now it is written
    reader.writeBlock(writer)
    writer.rethrow()
    items.push({ kind: 'block', crc: first.crc, size: reader.blockSize })
  }
  for (;;) {
    const at = reader.bitPosition
    const high = reader.bits(24)
    const low = reader.bits(24)
    if (high === BLOCK_MAGIC[0] && low === BLOCK_MAGIC[1]) {
      if (at >= toBit) return { startBit, endBit: at, items }
      const stored = reader.readBlock()
      const crc = reader.writeBlock(writer)
      if (crc !== stored) {
        throw new Bzip2Error(`bad bzip2 block CRC (got ${crc} expected ${stored})`)
      }
      writer.rethrow()
      items.push({ kind: 'block', crc, size: reader.blockSize })
    } else if (high === END_MAGIC[0] && low === END_MAGIC[1]) {
      items.push({ kind: 'end', crc: reader.bits32() })
      reader.alignToByte()
      if (reader.bitPosition >= data.length * 8) {
        return { startBit, endBit: data.length * 8, items }
      }
      items.push({ kind: 'start', level: readStreamHeader(reader) })
    } else {
      throw new Bzip2Error('bad bzip2 block magic')
    }
  }
}

const discard = new ChunkWriter(undefined)

/**
 * The first block magic at or after `fromBit` whose block decodes and matches its CRC, with
 * that CRC; the reader is left after the block, which `writeBlock` can write. Undefined if none.
 */
function firstSoundBlock(
  reader: Bzip2BlockReader,
  fromBit: number,
): { at: number; crc: number } | undefined {
  for (
    let at = findBlockMagic(reader.data, fromBit);
    at >= 0;
    at = findBlockMagic(reader.data, at + 1)
  ) {
    reader.seek(at + MAGIC_BITS)
    try {
      const crc = reader.readBlock()
      if (reader.writeBlock(discard) === crc) return { at, crc }
    } catch (error) {
      if (!(error instanceof Bzip2Error)) throw error
    }
  }
  return undefined
}

function readStreamHeader(reader: Bzip2BlockReader): number {
  const b = reader.bits(8)
  const z = reader.bits(8)
  const h = reader.bits(8)
  const level = reader.bits(8) - 0x30
  if (b !== 0x42 || z !== 0x5a || h !== 0x68 || level < 1 || level > 9) {
    throw new Bzip2Error('not a bzip2 stream header (BZh1 … BZh9)')
  }
  return level
}

/**
 * Checks the stream structure over the items of a whole file, in order: every block inside a
 * stream and no larger than its level allows, every stream ended and its CRC equal to the
 * combination of its blocks' CRCs.
 *
 * @throws {Bzip2Error} otherwise.
 */
export function checkBzip2Streams(items: Iterable<Bzip2Item>): void {
  let level = 0
  let crc = 0
  for (const item of items) {
    if (item.kind === 'start') {
      if (level !== 0) throw new Bzip2Error('bzip2 stream header inside a stream')
      level = item.level
      crc = 0
    } else if (item.kind === 'block') {
      if (level === 0) throw new Bzip2Error('bzip2 block outside a stream')
      if (item.size > level * 100_000) {
        throw new Bzip2Error(`bzip2 block of ${item.size} exceeds level ${level}`)
      }
      crc = combineBlockCrc(crc, item.crc)
    } else {
      if (level === 0) throw new Bzip2Error('bzip2 stream end outside a stream')
      if (item.crc !== crc) {
        throw new Bzip2Error(`bad bzip2 stream CRC (got ${crc} expected ${item.crc})`)
      }
      level = 0
    }
  }
  if (level !== 0) throw new Bzip2Error('unexpected end of bzip2 data (stream not ended)')
}
