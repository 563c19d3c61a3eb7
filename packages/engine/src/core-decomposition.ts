import type { AsGraph } from './as-graph.js'

/** Core numbers of a snapshot: `shells[i]` is the core number (shell index) of `asns[i]`. */
export interface CoreDecomposition {
  asns: Uint32Array
  shells: Uint32Array
  /** Largest core number (0 for an empty graph). */
  maxShell: number
}

/**
 * Core number of every AS, by the linear-time Batagelj–Zaversnik bucket algorithm
 * (O(nodes + links)) over the CSR arrays. Equals NetworkX `core_number` and graphology-cores
 * `coreNumber` on the same graph.
 */
export function coreDecomposition(graph: AsGraph): CoreDecomposition {
  const { asns, offsets, neighbors } = graph
  const n = asns.length
  const degree = new Uint32Array(n)
  let maxDegree = 0
  for (let v = 0; v < n; v++) {
    const d = offsets[v + 1]! - offsets[v]!
    degree[v] = d
    if (d > maxDegree) maxDegree = d
  }
  // bin[d] = first position of degree d in `order` (nodes sorted by current degree)
  const bin = new Uint32Array(maxDegree + 1)
  for (let v = 0; v < n; v++) bin[degree[v]!]!++
  let start = 0
  for (let d = 0; d <= maxDegree; d++) {
    const count = bin[d]!
    bin[d] = start
    start += count
  }
  const order = new Uint32Array(n)
  const position = new Uint32Array(n)
  for (let v = 0; v < n; v++) {
    const p = bin[degree[v]!]!++
    position[v] = p
    order[p] = v
  }
  for (let d = maxDegree; d > 0; d--) bin[d] = bin[d - 1]!
  bin[0] = 0
  let maxShell = 0
  for (let i = 0; i < n; i++) {
    const v = order[i]!
    const dv = degree[v]!
    if (dv > maxShell) maxShell = dv
    for (let e = offsets[v]!, end = offsets[v + 1]!; e < end; e++) {
      const u = neighbors[e]!
      const du = degree[u]!
      if (du > dv) {
        // move u to the front of its bucket, then shrink its degree by one
        const pu = position[u]!
        const pw = bin[du]!
        const w = order[pw]!
        if (u !== w) {
          order[pu] = w
          position[w] = pu
          order[pw] = u
          position[u] = pw
        }
        bin[du]!++
        degree[u] = du - 1
      }
    }
  }
  return { asns: graph.asns, shells: degree, maxShell }
}
