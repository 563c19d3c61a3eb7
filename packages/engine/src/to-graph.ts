import Graph from 'graphology'
import type { AsGraph } from './as-graph.js'

/**
 * The AS graph as a graphology undirected `Graph` (node keys = ASN strings, no attributes), for
 * researchers who want graphology's standard library.
 */
export function toGraph(graph: AsGraph): Graph {
  const { asns, offsets, neighbors } = graph
  const result = new Graph({ type: 'undirected', multi: false, allowSelfLoops: false })
  const keys = Array.from(asns, String)
  for (const key of keys) result.addNode(key)
  for (let v = 0; v < keys.length; v++) {
    for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
      const u = neighbors[e]!
      if (u > v) result.addUndirectedEdge(keys[v]!, keys[u]!)
    }
  }
  return result
}
