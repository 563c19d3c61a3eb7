import type { AsGraph } from './as-graph.js'
import { sortedIndexOf } from './sorted-index-of.js'

/**
 * Marks the CSR positions of `links` (flat node pairs, each a link of `graph`) in both
 * directions: `cut[e]` is 1 when `neighbors[e]` no longer counts. Undefined when there is none.
 */
export function cutLinks(graph: AsGraph, links: Uint32Array): Uint8Array | undefined {
  if (links.length === 0) return undefined
  const { offsets, neighbors } = graph
  const cut = new Uint8Array(neighbors.length)
  for (let i = 0; i < links.length; i += 2) {
    const u = links[i]!
    const v = links[i + 1]!
    cut[sortedIndexOf(neighbors, v, offsets[u]!, offsets[u + 1]!)] = 1
    cut[sortedIndexOf(neighbors, u, offsets[v]!, offsets[v + 1]!)] = 1
  }
  return cut
}
