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
 * that start in its share of the block list ({@link partStart}), their text read line by line.
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
 * How much less of the blocks the lead (part 0) takes, as a share of the whole file's decode
 * and parse time: after its part it waits for the others, stitches, builds the CSR and
 * decomposes, which for a 2024 file takes about a quarter of that time.
 */
const LEAD_TAIL = 0.25

/**
 * Where part `part` of `parts` starts, in bits (past the last part: +∞): at a block magic, a
 * share of the file's block magics in. The lead gets its share less {@link LEAD_TAIL}, the
 * others the rest in equal shares, so that all finish together. A part may get no block.
 */
export function partStart(
  data: Uint8Array,
  magics: readonly number[],
  part: number,
  parts: number,
): number {
  if (part === 0) return 0
  if (part >= parts) return Number.POSITIVE_INFINITY
  const blocks = magics.filter((at) => readMagic(data, at) === BLOCK_MAGIC)
  const lead = Math.max(0, (1 + LEAD_TAIL) / parts - LEAD_TAIL)
  const share = lead + ((part - 1) * (1 - lead)) / (parts - 1)
  const index = Math.round(blocks.length * share)
  // (never 0: bit 0 would mean the first stream header, which only the lead reads)
  return index < blocks.length ? blocks[index]! : Math.max(1, data.length * 8)
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
