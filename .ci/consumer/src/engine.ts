// Audience 1: a TypeScript project importing the engine.
import { coreDecomposition, parseAsRel, toGraph } from '@kcore/engine'

// CAIDA serial-1 lines: provider|customer|-1 or peer|peer|0.
const graph = await parseAsRel('1|2|0\n1|3|0\n2|3|0\n3|4|-1\n')
const { asns, shells, maxShell } = coreDecomposition(graph)
const graphology = toGraph(graph)

// Type-checked, never run: each line fails to compile if a public type degrades to `any`.
export function typesAreNotAny() {
  // @ts-expect-error maxShell is a number
  const wrong: string = maxShell
  // @ts-expect-error toGraph() returns a typed graphology graph
  graphology.noSuchMethod()
  return wrong
}

const shellOf = Object.fromEntries(Array.from(asns, (asn, i) => [asn, shells[i]]))
if (maxShell !== 2 || shellOf[4] !== 1 || graphology.order !== 4 || graphology.size !== 4)
  throw new Error(`unexpected decomposition: ${JSON.stringify({ maxShell, shellOf })}`)
// The same lines as bzip2 (`bzip2 -9 | base64`): libbzip2's WebAssembly must load from the
// installed package.
const bz2 = Uint8Array.from(
  atob('QlpoOTFBWSZTWSRtcOAAAATYgAAQAAJ8AAAEIAAxDAgSmQaXdQMwaQlOhBvxdyRThQkCRtcOAA=='),
  (c) => c.charCodeAt(0),
)
const fromBz2 = await parseAsRel(bz2)
if (fromBz2.linkCount !== graph.linkCount || fromBz2.asns.join() !== graph.asns.join())
  throw new Error('bzip2 input decoded differently')
console.log(
  `engine: ${asns.length} ASes, max shell ${maxShell}, graphology order ${graphology.order}`,
)
