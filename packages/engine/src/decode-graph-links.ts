import type { AsGraph } from './as-graph.js'
import { GRAPH_LINKS_MAGIC, GRAPH_LINKS_VERSION } from './graph-links-format.js'
import { MAX_ASN } from './max-asn.js'
import { VarintReader } from './varint.js'

/**
 * The graph {@link encodeGraphLinks} encoded, in the CSR form the parser builds (neighbour lists
 * ascending, both directions).
 *
 * @throws {RangeError} for bytes that are not a whole encoding of a version this engine reads
 * (another version, truncated, trailing bytes, ASNs out of order, a node number out of range,
 * counts that do not add up); nothing is allocated beyond what the bytes could hold.
 */
export function decodeGraphLinks(bytes: Uint8Array): AsGraph {
  try {
    return decode(bytes)
  } catch (error) {
    if (error instanceof RangeError) {
      throw new RangeError(`decodeGraphLinks: not an encoded AS graph: ${error.message}`)
    }
    throw error
  }
}

function decode(bytes: Uint8Array): AsGraph {
  const input = new VarintReader(bytes)
  for (const byte of GRAPH_LINKS_MAGIC) {
    if (input.read() !== byte) throw new RangeError('no kcgl header')
  }
  const version = input.read()
  if (version !== GRAPH_LINKS_VERSION) {
    throw new RangeError(`version ${version} (this engine reads ${GRAPH_LINKS_VERSION})`)
  }
  // every AS and every link takes a byte at least: larger counts are not believed
  const count = (what: string) => {
    const value = input.read()
    if (value > bytes.length) throw new RangeError(`${value} ${what} in ${bytes.length} bytes`)
    return value
  }
  const n = count('ASes')
  const linkCount = count('links')
  const serial = input.read()
  if (serial > 1) throw new RangeError(`format ${serial}`)
  const [inputClique, inferredClique, ixpAses] = [0, 1, 2].map(() =>
    Array.from({ length: count('metadata ASNs') }, () => input.read()),
  ) as [number[], number[], number[]]
  const asns = new Uint32Array(n)
  let asn = -1
  for (let v = 0; v < n; v++) {
    asn = v === 0 ? input.read() : asn + 1 + input.read()
    if (asn > MAX_ASN) throw new RangeError(`ASN ${asn} past ${MAX_ASN}`)
    asns[v] = asn
  }
  // the later ends of each node's links, then both directions
  const later = new Uint32Array(linkCount)
  const laterStart = new Uint32Array(n + 1)
  const degree = new Uint32Array(n)
  let k = 0
  for (let v = 0; v < n; v++) {
    laterStart[v] = k
    const links = input.read()
    if (k + links > linkCount) throw new RangeError(`more than ${linkCount} links`)
    let u = v
    for (let i = 0; i < links; i++) {
      // a one-byte gap read here: most are
      const byte = bytes[input.at]!
      if (byte < 0x80) {
        input.at++
        u += 1 + byte
      } else u += 1 + input.read()
      if (u >= n) throw new RangeError(`node ${u} of ${n}`)
      later[k++] = u
      degree[u]!++
    }
    degree[v]! += links
  }
  laterStart[n] = k
  if (k !== linkCount) throw new RangeError(`${k} links, ${linkCount} announced`)
  if (!input.done) throw new RangeError('bytes after the last link')
  const offsets = new Uint32Array(n + 1)
  for (let v = 0; v < n; v++) offsets[v + 1] = offsets[v]! + degree[v]!
  const neighbors = new Uint32Array(2 * linkCount)
  // walking the nodes in order, each is appended to its later neighbours' lists (before their
  // own later ends, which go after them): every list comes out ascending
  const fill = offsets.slice(0, n)
  for (let v = 0; v < n; v++) {
    const from = laterStart[v]!
    const to = laterStart[v + 1]!
    const own = offsets[v + 1]! - (to - from)
    neighbors.set(later.subarray(from, to), own)
    for (let i = from; i < to; i++) neighbors[fill[later[i]!]!++] = v
  }
  return {
    asns,
    offsets,
    neighbors,
    linkCount,
    format: serial === 1 ? 'serial-2' : 'serial-1',
    metadata: { inputClique, inferredClique, ixpAses },
  }
}
