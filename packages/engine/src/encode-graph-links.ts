import type { AsGraph } from './as-graph.js'
import { GRAPH_LINKS_MAGIC, GRAPH_LINKS_VERSION } from './graph-links-format.js'
import { VarintWriter } from './varint.js'

/**
 * A graph's ASes, links, format and metadata in a compact binary form, for a store to keep
 * every snapshot's graph (read back by {@link decodeGraphLinks}). Varints (LEB128) throughout:
 *
 * - `kcgl`, the version (1), the AS count, the link count, the format (0 serial-1, 1 serial-2);
 * - the three metadata lists (input clique, inferred clique, IXP ASes): a count, then the ASNs;
 * - the ASNs, ascending: the first, then each one's gap to the one before, less one;
 * - for each AS in order, its links to later ASes: how many, then the node numbers as gaps
 *   (to the AS itself first, then to the one before), less one. Each link is written once, by
 *   its end that comes first; sorted lists make most gaps a byte.
 */
export function encodeGraphLinks(graph: AsGraph): Uint8Array {
  const { asns, offsets, neighbors, metadata } = graph
  const n = asns.length
  const out = new VarintWriter()
  for (const byte of GRAPH_LINKS_MAGIC) out.write(byte)
  out.write(GRAPH_LINKS_VERSION)
  out.write(n)
  out.write(graph.linkCount)
  out.write(graph.format === 'serial-2' ? 1 : 0)
  for (const list of [metadata.inputClique, metadata.inferredClique, metadata.ixpAses]) {
    out.write(list.length)
    for (const asn of list) out.write(asn)
  }
  for (let v = 0; v < n; v++) out.write(v === 0 ? asns[0]! : asns[v]! - asns[v - 1]! - 1)
  for (let v = 0; v < n; v++) {
    const end = offsets[v + 1]!
    let e = offsets[v]!
    while (e < end && neighbors[e]! < v) e++
    out.write(end - e)
    let previous = v
    for (; e < end; e++) {
      out.write(neighbors[e]! - previous - 1)
      previous = neighbors[e]!
    }
  }
  return out.bytes()
}
