import type { AsGraph } from './as-graph.js'
import type { CoreDecomposition } from './core-decomposition.js'

/** A typed array's contents in a SharedArrayBuffer of its own (itself when already shared). */
function shared(array: Uint32Array): Uint32Array {
  if (array.buffer instanceof SharedArrayBuffer) return array
  const copy = new Uint32Array(new SharedArrayBuffer(array.byteLength))
  copy.set(array)
  return copy
}

// One shared copy per graph and decomposition object, kept while the caller keeps the object
// (a store's cache of decoded graphs does, for its revision).
const graphs = new WeakMap<AsGraph, AsGraph>()
const decompositions = new WeakMap<CoreDecomposition, CoreDecomposition>()

/**
 * `graph` with its arrays in shared memory, made once per graph: posting it to a worker then
 * copies no array (a 2024 graph's 4.6 MB cost the posting thread ~11 ms per question). Nobody
 * writes to it (the engine's functions are pure), so the sharing is safe.
 */
export function sharedGraph(graph: AsGraph): AsGraph {
  let copy = graphs.get(graph)
  if (!copy) {
    const { asns, offsets, neighbors } = graph
    copy = { ...graph, asns: shared(asns), offsets: shared(offsets), neighbors: shared(neighbors) }
    graphs.set(graph, copy)
  }
  return copy
}

/** {@link sharedGraph} for a decomposition. */
export function sharedDecomposition(decomposition: CoreDecomposition): CoreDecomposition {
  let copy = decompositions.get(decomposition)
  if (!copy) {
    const { asns, shells } = decomposition
    copy = { ...decomposition, asns: shared(asns), shells: shared(shells) }
    decompositions.set(decomposition, copy)
  }
  return copy
}

// A number per (graph, decomposition) pair, kept while the decomposition is.
const pairKeys = new WeakMap<CoreDecomposition, { graph: AsGraph; key: number }>()
let lastKey = 0

/**
 * A number naming the pair `graph`, `decomposition` (the same for the same two objects): a
 * worker keeps what it derives from a pair asked about again, which the objects it receives
 * (new ones per message) cannot tell it.
 */
export function pairKey(graph: AsGraph, decomposition: CoreDecomposition): number {
  const known = pairKeys.get(decomposition)
  if (known?.graph === graph) return known.key
  pairKeys.set(decomposition, { graph, key: ++lastKey })
  return lastKey
}
