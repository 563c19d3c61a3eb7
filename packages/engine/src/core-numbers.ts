import type { AbstractGraph } from 'graphology-types'
import { buildAsGraph } from './build-as-graph.js'
import { coreDecomposition } from './core-decomposition.js'

/**
 * Core number of every node of any graphology graph (node key → core number), with the same
 * linear-time algorithm as {@link coreDecomposition}. Edge direction, parallel edges and
 * self-loops are ignored, like NetworkX does for an undirected simple graph.
 */
export function coreNumbers(graph: AbstractGraph): Map<string, number> {
  const keys = graph.nodes()
  const index = new Map<string, number>()
  for (let i = 0; i < keys.length; i++) index.set(keys[i]!, i)
  const pairs = new Uint32Array(graph.size * 2 + keys.length * 2)
  let k = 0
  // every node once as a self-loop so isolated nodes are kept (self-loops are dropped later)
  for (let i = 0; i < keys.length; i++) {
    pairs[k++] = i
    pairs[k++] = i
  }
  graph.forEachEdge((_edge, _attributes, source, target) => {
    pairs[k++] = index.get(source)!
    pairs[k++] = index.get(target)!
  })
  const csr = buildAsGraph(pairs.subarray(0, k), 'serial-1', {
    inputClique: [],
    inferredClique: [],
    ixpAses: [],
  })
  const { shells } = coreDecomposition(csr)
  // csr.asns are the node positions, ascending: 0..n-1
  const result = new Map<string, number>()
  for (let i = 0; i < csr.asns.length; i++) result.set(keys[csr.asns[i]!]!, shells[i]!)
  return result
}
