import type { AsGraph } from './as-graph.js'
import { coreDecomposition } from './core-decomposition.js'
import type { ResolvedChange } from './resolve-graph-change.js'

/**
 * The core numbers after `change`, by a full recomputation: the changed graph's CSR, in one pass
 * over the graph's, then its decomposition. Indexed by the change's node numbers (the graph's,
 * then the added ASes'), which the CSR keeps: a removed node stays as a node without links
 * (its entry is 0), and neighbour lists need no order for the decomposition. `cut` marks the
 * links removed by name ({@link cutLinks}).
 */
export function recomputeCores(
  graph: AsGraph,
  change: ResolvedChange,
  cut: Uint8Array | undefined,
): Uint32Array {
  const { asns, offsets, neighbors } = graph
  const n = asns.length
  const total = n + change.addedAsns.length
  const { addedLinks } = change
  const removed = new Uint8Array(total)
  for (const node of change.removedNodes) removed[node] = 1
  const degree = new Uint32Array(total)
  for (let i = 0; i < addedLinks.length; i++) degree[addedLinks[i]!]!++
  const changedOffsets = new Uint32Array(total + 1)
  const changedNeighbors = new Uint32Array(neighbors.length + addedLinks.length)
  let k = 0
  for (let v = 0; v < total; v++) {
    changedOffsets[v] = k
    if (removed[v] || v >= n) {
      k += degree[v]! // room for the added links
      continue
    }
    for (let e = offsets[v]!, end = offsets[v + 1]!; e < end; e++) {
      const u = neighbors[e]!
      if (!removed[u] && !cut?.[e]) changedNeighbors[k++] = u
    }
    k += degree[v]!
  }
  changedOffsets[total] = k
  // the added links go at the end of each list, in the room left there
  const fill = new Uint32Array(total)
  for (let v = 0; v < total; v++) fill[v] = changedOffsets[v + 1]! - degree[v]!
  for (let i = 0; i < addedLinks.length; i += 2) {
    const u = addedLinks[i]!
    const v = addedLinks[i + 1]!
    changedNeighbors[fill[u]!++] = v
    changedNeighbors[fill[v]!++] = u
  }
  const changed: AsGraph = {
    ...graph,
    asns: new Uint32Array(total),
    offsets: changedOffsets,
    neighbors: changedNeighbors.subarray(0, k),
    linkCount: k / 2,
  }
  return coreDecomposition(changed).shells
}
