import fc from 'fast-check'
import Graph from 'graphology'
import { coreNumber } from 'graphology-cores'
import { describe, expect, it } from 'vitest'
import type { AsGraph } from './as-graph.js'
import { buildAsGraph } from './build-as-graph.js'
import { coreDecomposition } from './core-decomposition.js'
import { parseAsRel } from './parse-as-rel.js'

const noMetadata = { inputClique: [], inferredClique: [], ixpAses: [] }
const referenceCores = coreNumber as unknown as (graph: Graph) => Record<string, number>

/** Random AS-relationship pairs: small ASN range so duplicates, reversals and loops happen. */
const pairsArbitrary = fc.array(
  fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 })),
  { maxLength: 200 },
)

function graphOf(pairs: [number, number][]): AsGraph {
  return buildAsGraph(new Uint32Array(pairs.flat()), 'serial-1', noMetadata)
}

/** The reference: a graphology graph built straight from the pairs, cores by graphology-cores. */
function reference(pairs: [number, number][]): Map<number, number> {
  const graph = new Graph({ type: 'undirected' })
  for (const [a, b] of pairs) {
    graph.mergeNode(String(a))
    graph.mergeNode(String(b))
    if (a !== b) graph.mergeUndirectedEdge(String(a), String(b))
  }
  const cores = referenceCores(graph)
  return new Map(Object.entries(cores).map(([key, core]) => [Number(key), core]))
}

function shellsOf(graph: AsGraph): Map<number, number> {
  const { shells } = coreDecomposition(graph)
  return new Map(Array.from(graph.asns, (asn, i) => [asn, shells[i]!]))
}

describe('coreDecomposition', () => {
  it('knows small shapes: clique, path, star, isolated AS, empty graph', async () => {
    const k5 = await parseAsRel(
      '1|2|0\n1|3|0\n1|4|0\n1|5|0\n2|3|0\n2|4|0\n2|5|0\n3|4|0\n3|5|0\n4|5|0\n',
    )
    expect(Array.from(coreDecomposition(k5).shells)).toEqual([4, 4, 4, 4, 4])
    expect(coreDecomposition(k5).maxShell).toBe(4)
    const path = await parseAsRel('1|2|0\n2|3|0\n3|4|0\n9|9|0\n')
    expect(Array.from(coreDecomposition(path).shells)).toEqual([1, 1, 1, 1, 0])
    // triangle with a tail
    const tail = await parseAsRel('1|2|0\n2|3|0\n3|1|0\n3|4|-1\n4|5|-1\n')
    expect(Array.from(coreDecomposition(tail).shells)).toEqual([2, 2, 2, 1, 1])
    const empty = coreDecomposition(await parseAsRel(''))
    expect(empty).toEqual({ asns: new Uint32Array(0), shells: new Uint32Array(0), maxShell: 0 })
  })

  it('equals graphology-cores on random graphs', () => {
    fc.assert(
      fc.property(pairsArbitrary, (pairs) => {
        const graph = graphOf(pairs)
        const expected = reference(pairs)
        expect(shellsOf(graph)).toEqual(expected)
        expect(coreDecomposition(graph).maxShell).toBe(Math.max(0, ...expected.values()))
      }),
      { numRuns: 300 },
    )
  })

  it('equals graphology-cores on random dense graphs', () => {
    const dense = fc.array(
      fc.tuple(fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 25 })),
      { minLength: 100, maxLength: 400 },
    )
    fc.assert(
      fc.property(dense, (pairs) => {
        expect(shellsOf(graphOf(pairs))).toEqual(reference(pairs))
      }),
      { numRuns: 100 },
    )
  })

  it('puts every node of the k-core subgraph at degree >= k within it', () => {
    fc.assert(
      fc.property(pairsArbitrary, (pairs) => {
        const graph = graphOf(pairs)
        const { shells, maxShell } = coreDecomposition(graph)
        for (let k = 0; k <= maxShell; k++) {
          for (let v = 0; v < graph.asns.length; v++) {
            if (shells[v]! < k) continue
            let inside = 0
            for (let e = graph.offsets[v]!; e < graph.offsets[v + 1]!; e++) {
              if (shells[graph.neighbors[e]!]! >= k) inside++
            }
            expect(inside).toBeGreaterThanOrEqual(k)
          }
        }
      }),
      { numRuns: 200 },
    )
  })

  it('never raises a core number when an edge is removed', () => {
    fc.assert(
      fc.property(pairsArbitrary, fc.nat(), (pairs, pick) => {
        const links = pairs.filter(([a, b]) => a !== b)
        fc.pre(links.length > 0)
        const [a, b] = links[pick % links.length]!
        const before = shellsOf(graphOf(pairs))
        // drop that link in both directions, keep both ASes
        const rest = pairs.filter(([x, y]) => !((x === a && y === b) || (x === b && y === a)))
        const after = shellsOf(graphOf([...rest, [a, a], [b, b]]))
        for (const [asn, shell] of after) expect(shell).toBeLessThanOrEqual(before.get(asn)!)
        expect([...after.keys()].sort()).toEqual([...before.keys()].sort())
      }),
      { numRuns: 200 },
    )
  })
})
