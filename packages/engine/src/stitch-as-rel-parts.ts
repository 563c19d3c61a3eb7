import type { AsGraph, SnapshotMetadata } from './as-graph.js'
import { AsRelLineReader } from './as-rel-line-reader.js'
import type { AsRelPart } from './as-rel-part.js'
import { buildAsGraph } from './build-as-graph.js'
import { checkBzip2Ranges } from './bzip2-range.js'
import { concatArrays } from './concat-arrays.js'

const NEWLINE = new Uint8Array([10])

/**
 * The graph of a snapshot decoded and parsed in parts ({@link parseAsRelPart}), given in order.
 * The parts must chain (each starts at the bit where the one before stopped: no block decoded
 * twice or skipped, whatever false block magic a part may have met), each must have assumed
 * the level of the stream it starts in, and the stream CRCs must hold over all their blocks; the lines cut between parts are read here, in order, so a
 * metadata line in a later part wins as it does in one pass.
 *
 * @throws {Bzip2Error} when the parts do not chain or a stream check fails;
 * `AsRelParseError` for a malformed line cut between parts. The caller then reads the
 * snapshot in one part, which reports the error as it would have without the split.
 */
export function stitchAsRelParts(parts: readonly AsRelPart[]): AsGraph {
  checkBzip2Ranges(parts.map((part) => part.range))
  const first = parts[0]!
  const metadata: SnapshotMetadata = {
    inputClique: [],
    inferredClique: [],
    ixpAses: [],
    ...first.metadata,
  }
  let serial2 = first.serial2
  const pairs = [first.pairs]
  // reads the lines that span parts (and the last line, when the text ends without a newline)
  const seams = new AsRelLineReader()
  const takeSeamMetadata = () => {
    for (const key of seams.metadataFound) metadata[key] = seams.metadata[key]
    seams.metadataFound.clear()
  }
  seams.push(first.tail)
  for (const part of parts.slice(1)) {
    seams.push(part.head)
    if (!part.headEnded) continue // all of the part's text lies inside one line
    seams.push(NEWLINE)
    takeSeamMetadata()
    Object.assign(metadata, part.metadata)
    serial2 ||= part.serial2
    pairs.push(part.pairs)
    seams.push(part.tail)
  }
  seams.end()
  takeSeamMetadata()
  serial2 ||= seams.serial2
  pairs.push(seams.edges.view())
  return buildAsGraph(
    concatArrays((n) => new Uint32Array(n), pairs),
    serial2 ? 'serial-2' : 'serial-1',
    metadata,
  )
}
