import Graph from 'graphology'
// The declared type comes from graphology-types: graphology's own declarations are CommonJS
// (no "exports"), so under node16/nodenext resolution its default import is the module
// namespace, not the class, and `Graph` in our .d.ts would not name a type (TS2709).
import type { AbstractGraph } from 'graphology-types'
import type { AsGraph } from './as-graph.js'

/**
 * The AS graph as a graphology undirected `Graph` (node keys = ASN strings, no attributes), for
 * researchers who want graphology's standard library.
 */
export function toGraph(graph: AsGraph): AbstractGraph {
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
