import fc from 'fast-check'
import Graph, { DirectedGraph, MultiGraph } from 'graphology'
import { coreNumber } from 'graphology-cores'
import { describe, expect, it } from 'vitest'
import { coreNumbers } from './core-numbers.js'
import { parseAsRel } from './parse-as-rel.js'
import { toGraph } from './to-graph.js'

const referenceCores = coreNumber as unknown as (graph: Graph) => Record<string, number>

describe('toGraph and coreNumbers', () => {
  it('turns an AsGraph into an undirected graphology graph keyed by ASN strings', async () => {
    const graph = toGraph(await parseAsRel('1|2|0\n2|1|-1\n2|3|0\n7|7|0\n'))
    expect(graph.type).toBe('undirected')
    expect(graph.nodes().sort()).toEqual(['1', '2', '3', '7'])
    expect(graph.size).toBe(2)
    expect(graph.hasUndirectedEdge('2', '1')).toBe(true)
    expect(graph.hasUndirectedEdge('1', '3')).toBe(false)
    expect(graph.degree('7')).toBe(0)
  })

  it('gives the same core numbers as graphology-cores on any undirected graph', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 30 })), {
          maxLength: 150,
        }),
        (pairs) => {
          const graph = new Graph({ type: 'undirected' })
          for (const [a, b] of pairs) {
            graph.mergeNode(`n${a}`)
            graph.mergeNode(`n${b}`)
            if (a !== b) graph.mergeUndirectedEdge(`n${a}`, `n${b}`)
          }
          expect(coreNumbers(graph)).toEqual(new Map(Object.entries(referenceCores(graph))))
        },
      ),
      { numRuns: 200 },
    )
  })

  it('ignores direction, parallel edges and self-loops', () => {
    const directed = new DirectedGraph()
    directed.mergeEdge('a', 'b')
    directed.mergeEdge('b', 'a')
    directed.mergeEdge('b', 'c')
    directed.mergeEdge('c', 'a')
    directed.mergeEdge('c', 'd')
    directed.addNode('alone')
    expect(coreNumbers(directed)).toEqual(
      new Map([
        ['a', 2],
        ['b', 2],
        ['c', 2],
        ['d', 1],
        ['alone', 0],
      ]),
    )
    const multi = new MultiGraph()
    multi.addNode('x')
    multi.addNode('y')
    multi.addEdge('x', 'y')
    multi.addEdge('x', 'y')
    multi.addEdge('x', 'x')
    expect(coreNumbers(multi)).toEqual(
      new Map([
        ['x', 1],
        ['y', 1],
      ]),
    )
  })

  it('round-trips: coreNumbers(toGraph(g)) matches graphology-cores on a real file slice', async () => {
    const { readFile } = await import('node:fs/promises')
    const graph = toGraph(
      await parseAsRel(
        await readFile(new URL('../test/fixtures/20140601.as-rel.txt.bz2', import.meta.url)),
      ),
    )
    expect(coreNumbers(graph)).toEqual(new Map(Object.entries(referenceCores(graph))))
  })
})
