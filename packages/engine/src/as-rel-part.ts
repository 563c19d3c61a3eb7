import type { SnapshotMetadata } from './as-graph.js'
import { AsRelLineReader } from './as-rel-line-reader.js'
import { AsRelParseError } from './as-rel-parse-error.js'
import { loadBzip2BlockDecoder } from './bzip2-block-decoder.js'
import { BLOCK_MAGIC, findMagics, readMagic } from './bzip2-framing.js'
import { type Bzip2Range, decodeBzip2Range } from './bzip2-range.js'
import { concatArrays } from './concat-arrays.js'

const LF = 10
const MAX_LINE_BYTES = 1 << 20

/**
 * One part of a bzip2 snapshot decoded and parsed on its own (in its own worker): the blocks
 * that start in its share of the file's bits ({@link partStart}), their text read line by line.
 * Its text starts and ends anywhere in a line, so the partial lines at both ends are kept as
 * bytes for {@link stitchAsRelParts}, which reads them with the neighbouring parts' ends.
 */
export interface AsRelPart {
  range: Bzip2Range
  /** The text before the part's first newline (a line begun in an earlier part). */
  head: Uint8Array
  /** False when the part's text has no newline at all (`head` is all of it). */
  headEnded: boolean
  /** ASN pairs of the part's whole lines (`a0, b0, a1, b1, …`). */
  pairs: Uint32Array
  lineCount: number
  /** The text after the part's last newline (a line ended in a later part). */
  tail: Uint8Array
  metadata: Partial<SnapshotMetadata>
  serial2: boolean
}

/**
 * Where part `part` of `parts` starts, in bits (past the last part: +∞): at the block magic
 * nearest to `part / parts` of the file's bits, so that every part gets an equal share of the
 * compressed bits (decode and parse time follow them; a block count would not, the last block
 * of a stream being short). The lead gets no less than a helper: its stitching, graph build
 * and decomposition need every part's pairs, so they cannot start before the last helper is
 * done, and a lead with less to read would only wait for it. A part may get no block.
 */
export function partStart(
  data: Uint8Array,
  magics: readonly number[],
  part: number,
  parts: number,
): number {
  if (part === 0) return 0
  if (part >= parts) return Number.POSITIVE_INFINITY
  // the block starts, then the file's end (a part starting there gets no block)
  const starts = magics.filter((at) => readMagic(data, at) === BLOCK_MAGIC)
  starts.push(data.length * 8)
  const target = (data.length * 8 * part) / parts
  // the first start at or after the target, or the one before it when that one is nearer
  let index = starts.findIndex((at) => at >= target)
  if (index > 0 && target - starts[index - 1]! < starts[index]! - target) index--
  // (never 0: bit 0 would mean the first stream header, which only the lead reads)
  return Math.max(1, starts[index]!)
}

/** The decompressed size cap as the parts of one snapshot share it. */
export interface TextBudget {
  /** Bytes of text still allowed. */
  room(): number
  /** Told the size of every block's text before it is parsed; throws past the cap. */
  count(bytes: number): void
  /** Refuses a block longer than `room()` (throws). */
  refuse(): never
}

/** No cap (tests). */
export const UNLIMITED: TextBudget = {
  room: () => Number.MAX_SAFE_INTEGER,
  count: () => {},
  refuse: () => {
    throw new Error('unreachable: no cap')
  },
}

/**
 * Decodes and parses part `part` of `parts` of a bzip2 snapshot, within `budget` (the
 * decompressed size cap, counted over all parts).
 *
 * @throws {Bzip2Error} or {@link AsRelParseError}; the caller then reads the snapshot in one
 * part, which reports the error the same way whatever the split.
 */
export async function parseAsRelPart(
  bytes: Uint8Array,
  part: number,
  parts: number,
  budget: TextBudget,
): Promise<AsRelPart> {
  const reader = new AsRelLineReader()
  const headChunks: Uint8Array[] = []
  let headLength = 0
  let headEnded = part === 0
  const push = (chunk: Uint8Array) => {
    budget.count(chunk.length)
    if (headEnded) return reader.push(chunk)
    const newline = chunk.indexOf(LF)
    const end = newline < 0 ? chunk.length : newline
    headChunks.push(chunk.slice(0, end))
    headLength += end
    if (headLength > MAX_LINE_BYTES) {
      throw new AsRelParseError(`a line longer than ${MAX_LINE_BYTES} bytes`, 0)
    }
    if (newline >= 0) {
      headEnded = true
      reader.push(chunk.subarray(newline + 1))
    }
  }
  // every part frames the whole file itself (a few ms): the same magics, no messages
  const magics = findMagics(bytes)
  const range = decodeBzip2Range(
    bytes,
    partStart(bytes, magics, part, parts),
    partStart(bytes, magics, part + 1, parts),
    await loadBzip2BlockDecoder(),
    { push, room: budget.room, refuse: budget.refuse },
    magics,
  )
  const metadata: Partial<SnapshotMetadata> = {}
  for (const key of reader.metadataFound) metadata[key] = reader.metadata[key]
  return {
    range,
    head: concatArrays((n) => new Uint8Array(n), headChunks),
    headEnded,
    pairs: reader.edges.view(),
    lineCount: reader.lineCount,
    tail: reader.takeCarry(),
    metadata,
    serial2: reader.serial2,
  }
}
