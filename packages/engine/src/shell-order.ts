import type { AsGraph } from './as-graph.js'

/**
 * @internal Each node's links to neighbours of shell index at least its own minus one, as CSR
 * positions of the graph: `edges[from[v] .. from[v + 1])`. While a removal lowers cores, a
 * node's other neighbours stay below any core it keeps or drops to by one, so these tell its new
 * bound (see `maintainCores`) at a fraction of its links: a top-shell hub of a 2024 snapshot has
 * thousands, mostly to stubs. Made once for a graph and its shell indices, then reused.
 */
export interface ShellOrder {
  from: Uint32Array
  edges: Uint32Array
}

/** {@link ShellOrder} of `graph` and its shell indices `shells`: two passes over the CSR. */
export function shellOrder(graph: AsGraph, shells: Uint32Array): ShellOrder {
  const { offsets, neighbors } = graph
  const n = graph.asns.length
  const from = new Uint32Array(n + 1)
  for (let v = 0; v < n; v++) {
    let count = 0
    for (let e = offsets[v]!, end = offsets[v + 1]!; e < end; e++)
      if (shells[neighbors[e]!]! + 1 >= shells[v]!) count++
    from[v + 1] = from[v]! + count
  }
  const edges = new Uint32Array(from[n]!)
  let k = 0
  for (let v = 0; v < n; v++) {
    for (let e = offsets[v]!, end = offsets[v + 1]!; e < end; e++)
      if (shells[neighbors[e]!]! + 1 >= shells[v]!) edges[k++] = e
  }
  return { from, edges }
}
