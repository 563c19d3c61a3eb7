import type { Bzip2BlockDecoder } from './bzip2-block-decoder.js'
import {
  BLOCK_MAGIC,
  Bzip2Error,
  combineBlockCrc,
  END_MAGIC,
  findMagics,
  levelBefore,
  MAGIC_BITS,
  maxBlockBits,
  readBits,
  readMagic,
  streamLevelAt,
} from './bzip2-framing.js'

/**
 * What a range of bzip2 data held, in order: stream headers (block size level), blocks (their
 * CRC, already checked by libbzip2 against their text) and stream ends (the stored stream CRC).
 * The stream CRCs are checked over the concatenated items of all ranges
 * ({@link checkBzip2Ranges}), since a range may start in the middle of a stream.
 */
export type Bzip2Item =
  | { kind: 'start'; level: number }
  | { kind: 'block'; crc: number }
  | { kind: 'end'; crc: number }

/** The blocks of one range: where the first started and where the range stopped, in bits. */
export interface Bzip2Range {
  startBit: number
  endBit: number
  /** The level the range assumed for its first items when they are blocks (0 otherwise). */
  level: number
  items: Bzip2Item[]
}

/** Where the text of a range goes, block by block, and how much of it is allowed. */
export interface Bzip2Sink {
  /** One block's text (already CRC-checked). */
  push(text: Uint8Array): void
  /** Bytes of text still allowed (the decompressed size cap). */
  room(): number
  /** Refuses a block whose text is longer than `room()` (throws). */
  refuse(): never
}

/**
 * How many candidate ends a block is tried against, and how many candidate starts a range
 * tries: a real block has its end among the first few magics after it (a false magic inside
 * compressed data is rare: bzip2 writes one into a block header for some byte sets), and the
 * bound keeps a file crafted full of magics from costing a decode per pair of them.
 */
const MAX_TRIES = 16

/**
 * Decodes the bzip2 blocks of `data` that start in bits `[fromBit, toBit)`, handing their
 * text to `sink` in order. The range stops at the first block that starts at or after `toBit`
 * (it still reads a stream end and the next stream's header on its way).
 *
 * Blocks are framed by their magics ({@link findMagics}): a block runs from its magic to the
 * next magic; a false magic inside it makes that reading fail, and the block is tried up to the
 * magic after (and so on). `fromBit` 0 reads from the first stream header. Otherwise the range
 * starts at the first block magic at or after `fromBit` whose block decodes (so a false magic
 * is skipped), with the level of the last stream header before it.
 *
 * Ranges that split a file decode the same blocks as one range over the whole file exactly
 * when they chain and their levels hold ({@link checkBzip2Ranges}).
 *
 * @throws {Bzip2Error} on corrupt or truncated data; what `sink` threw.
 */
export function decodeBzip2Range(
  data: Uint8Array,
  fromBit: number,
  toBit: number,
  decoder: Bzip2BlockDecoder,
  sink: Bzip2Sink,
  magics: readonly number[] = findMagics(data),
): Bzip2Range {
  const totalBits = data.length * 8
  const items: Bzip2Item[] = []
  const decodeAt = (at: number, level: number) => {
    const block = decodeBlockAt(data, at, level, decoder, sink.room(), magics)
    if (!block) return undefined
    if (block.text === undefined) sink.refuse()
    return { end: block.end, text: block.text }
  }
  let pos: number
  let level: number
  let startBit: number
  let startLevel = 0
  if (fromBit === 0) {
    level = streamHeader(data, 0)
    items.push({ kind: 'start', level })
    startBit = 0
    pos = 32
  } else {
    const first = firstSoundBlock(data, fromBit, magics, decodeAt)
    if (!first) return { startBit: totalBits, endBit: totalBits, level: 0, items }
    startBit = first.at
    level = startLevel = first.level
    if (startBit >= toBit) return { startBit, endBit: startBit, level: startLevel, items }
    items.push({ kind: 'block', crc: blockCrc(data, startBit) })
    sink.push(first.text)
    pos = first.end
  }
  for (;;) {
    const magic = readMagic(data, pos)
    if (magic === BLOCK_MAGIC) {
      if (pos >= toBit) return { startBit, endBit: pos, level: startLevel, items }
      const block = decodeAt(pos, level)
      if (!block) throw new Bzip2Error(`bad bzip2 block at bit ${pos}`)
      items.push({ kind: 'block', crc: blockCrc(data, pos) })
      sink.push(block.text)
      pos = block.end
    } else if (magic === END_MAGIC) {
      if (pos + MAGIC_BITS + 32 > totalBits) break
      items.push({ kind: 'end', crc: readBits(data, pos + MAGIC_BITS, 32) })
      pos = Math.ceil((pos + MAGIC_BITS + 32) / 8) * 8
      if (pos >= totalBits) return { startBit, endBit: totalBits, level: startLevel, items }
      level = streamHeader(data, pos >>> 3)
      items.push({ kind: 'start', level })
      pos += 32
    } else if (magic < 0) break
    else throw new Bzip2Error('bad bzip2 block magic')
  }
  throw new Bzip2Error('unexpected end of bzip2 data')
}

/**
 * The block at bit `at`: the first reading, from `at` to one of the next magics, that decodes
 * as one sound block (`text` undefined: sound but longer than `room`); undefined if none.
 */
function decodeBlockAt(
  data: Uint8Array,
  at: number,
  level: number,
  decoder: Bzip2BlockDecoder,
  room: number,
  magics: readonly number[],
): { end: number; text: Uint8Array | undefined } | undefined {
  const limit = at + maxBlockBits(level)
  let i = firstAfter(magics, at)
  for (let tries = 0; tries < MAX_TRIES && i < magics.length && magics[i]! <= limit; tries++) {
    const end = magics[i++]!
    try {
      const block = decoder.decode(data, at, end, level, room)
      return { end, text: block.text }
    } catch (error) {
      if (!(error instanceof Bzip2Error)) throw error
    }
  }
  return undefined
}

/** The first block magic at or after `fromBit` that decodes as a block, with its level. */
function firstSoundBlock(
  data: Uint8Array,
  fromBit: number,
  magics: readonly number[],
  decodeAt: (at: number, level: number) => { end: number; text: Uint8Array } | undefined,
): { at: number; level: number; end: number; text: Uint8Array } | undefined {
  let tries = 0
  for (let i = firstAfter(magics, fromBit - 1); i < magics.length; i++) {
    const at = magics[i]!
    if (readMagic(data, at) !== BLOCK_MAGIC) continue
    const level = levelBefore(data, at)
    if (level === 0) continue
    const block = decodeAt(at, level)
    if (block) return { at, level, ...block }
    if (++tries === MAX_TRIES) throw new Bzip2Error('no sound bzip2 block in a range')
  }
  return undefined
}

/** The index of the first of the ascending `sorted` greater than `value`. */
function firstAfter(sorted: readonly number[], value: number): number {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (sorted[mid]! <= value) low = mid + 1
    else high = mid
  }
  return low
}

function blockCrc(data: Uint8Array, at: number): number {
  return readBits(data, at + MAGIC_BITS, 32)
}

function streamHeader(data: Uint8Array, at: number): number {
  const level = streamLevelAt(data, at)
  if (level === 0) throw new Bzip2Error('not a bzip2 stream header (BZh1 … BZh9)')
  return level
}

/**
 * Checks ranges that together cover a whole file, in order: each starts at the bit where the
 * one before stopped (no block decoded twice or skipped), each assumed the level of the stream
 * it starts in, every block lies inside a stream, every stream is ended and its CRC equals
 * the combination of its blocks' CRCs.
 *
 * @throws {Bzip2Error} otherwise.
 */
export function checkBzip2Ranges(ranges: readonly Bzip2Range[]): void {
  let level = 0
  let crc = 0
  for (const [i, range] of ranges.entries()) {
    const before = ranges[i - 1]
    if (before && before.endBit !== range.startBit) {
      throw new Bzip2Error(`bzip2 parts do not chain (bit ${before.endBit} ≠ ${range.startBit})`)
    }
    if (range.items[0]?.kind === 'block' && range.level !== level) {
      throw new Bzip2Error(`bzip2 part read at level ${range.level} inside a level ${level} stream`)
    }
    for (const item of range.items) {
      if (item.kind === 'start') {
        if (level !== 0) throw new Bzip2Error('bzip2 stream header inside a stream')
        level = item.level
        crc = 0
      } else if (item.kind === 'block') {
        if (level === 0) throw new Bzip2Error('bzip2 block outside a stream')
        crc = combineBlockCrc(crc, item.crc)
      } else {
        if (level === 0) throw new Bzip2Error('bzip2 stream end outside a stream')
        if (item.crc !== crc) {
          throw new Bzip2Error(`bad bzip2 stream CRC (got ${crc} expected ${item.crc})`)
        }
        level = 0
      }
    }
  }
  if (level !== 0) throw new Bzip2Error('unexpected end of bzip2 data (stream not ended)')
}
