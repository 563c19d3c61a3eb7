import type { AsGraph, SnapshotMetadata } from './as-graph.js'
import { asnIndex } from './asn-index.js'

/**
 * Builds the CSR graph from raw ASN pairs (`a0, b0, a1, b1, …`): ASNs sorted ascending, every
 * ASN of a pair kept as a node, self-loops dropped, duplicate and reversed pairs merged,
 * neighbour lists ascending. `pairs` is consumed: its buffer is reused to save memory.
 */
export function buildAsGraph(
  pairs: Uint32Array,
  format: AsGraph['format'],
  metadata: SnapshotMetadata,
): AsGraph {
  const asns = asnIndex(pairs)
  const ends = pairs
  const n = asns.length
  const offsets = new Uint32Array(n + 1)
  for (let i = 0; i < ends.length; i += 2) {
    const a = ends[i]!
    const b = ends[i + 1]!
    if (a !== b) {
      offsets[a + 1]!++
      offsets[b + 1]!++
    }
  }
  for (let v = 0; v < n; v++) offsets[v + 1]! += offsets[v]!
  // both directions of every pair, duplicates included for now, in input order
  const unsorted = new Uint32Array(offsets[n]!)
  const fill = offsets.slice(0, n)
  for (let i = 0; i < ends.length; i += 2) {
    const a = ends[i]!
    const b = ends[i + 1]!
    if (a === b) continue
    unsorted[fill[a]!++] = b
    unsorted[fill[b]!++] = a
  }
  // transpose: walking the nodes in ascending order and appending each node to its neighbours'
  // lists leaves every list sorted (the graph is symmetric, so the transpose is the graph);
  // the pairs are no longer needed, their buffer takes the sorted lists
  const all = pairs.subarray(0, unsorted.length)
  fill.set(offsets.subarray(0, n))
  for (let u = 0; u < n; u++) {
    for (let e = offsets[u]!, end = offsets[u + 1]!; e < end; e++) all[fill[unsorted[e]!]!++] = u
  }
  // squeeze out the duplicates, in place
  let write = 0
  for (let v = 0; v < n; v++) {
    const start = offsets[v]!
    const end = offsets[v + 1]!
    offsets[v] = write
    for (let e = start; e < end; e++) {
      const u = all[e]!
      if (e === start || u !== all[e - 1]) all[write++] = u
    }
  }
  offsets[n] = write
  const neighbors = all.slice(0, write)
  return { asns, offsets, neighbors, linkCount: write / 2, format, metadata }
}
