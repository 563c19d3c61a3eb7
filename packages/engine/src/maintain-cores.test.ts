import { readFile } from 'node:fs/promises'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { caidaDir } from '../test/caida-data.js'
import type { AsGraph } from './as-graph.js'
import { coreDecomposition } from './core-decomposition.js'
import { cutLinks } from './cut-links.js'
import type { GraphChange } from './graph-change.js'
import { maintainCores } from './maintain-cores.js'
import { parseAsRel } from './parse-as-rel.js'
import { recomputeCores } from './recompute-cores.js'
import { resolveGraphChange } from './resolve-graph-change.js'
import { shellOrder } from './shell-order.js'
import { changeArbitrary, graphArbitrary } from './what-if.fixture.js'

const RUNS = Number(process.env.FUZZ_RUNS ?? 300)

/**
 * Both ways of answering, the maintenance with no budget (it never gives up); the maintenance
 * with a shell order gives the same answer (or gives up alike), checked here.
 */
function both(graph: AsGraph, change: GraphChange, budget = Number.POSITIVE_INFINITY) {
  const resolved = resolveGraphChange(graph, change)
  const cut = cutLinks(graph, resolved.removedLinks)
  const { shells } = coreDecomposition(graph)
  const maintained = maintainCores(graph, shells, resolved, cut, budget)
  const order = shellOrder(graph, shells)
  const ordered = maintainCores(graph, shells, resolved, cut, Number.POSITIVE_INFINITY, order)
  if (maintained) expect(ordered).toEqual(maintained)
  return { maintained, recomputed: recomputeCores(graph, resolved, cut) }
}

const graphAndChange = (nodes?: number) =>
  graphArbitrary(nodes).chain((graph) =>
    changeArbitrary(graph).map((change) => ({ graph, change })),
  )

describe('shellOrder', () => {
  it("lists each node's links to shells at least its own minus one, as CSR positions", async () => {
    // K4 1-4 (shell 3), triangle 4-5-6 (shell 2), 7 on 6 and 8 on 1 (shell 1)
    const text = '1|2|0\n1|3|0\n1|4|0\n2|3|0\n2|4|0\n3|4|0\n4|5|0\n5|6|0\n4|6|0\n6|7|0\n1|8|0\n'
    const graph = await parseAsRel(text)
    const { shells } = coreDecomposition(graph)
    const { from, edges } = shellOrder(graph, shells)
    const lists = Array.from(graph.asns, (_, v) =>
      Array.from(edges.subarray(from[v]!, from[v + 1]!), (e) => graph.asns[graph.neighbors[e]!]),
    )
    // 1 leaves out 8 (two below it); 6 keeps 7 (one below)
    const kept = [[2, 3, 4], [1, 3, 4], [1, 2, 4], [1, 2, 3, 5, 6], [4, 6], [4, 5, 7], [6], [1]]
    expect(lists).toEqual(kept)
  })
})

describe('maintainCores', () => {
  it('lowers a whole cycle when one of its links goes (the drop travels along it)', async () => {
    const ring = Array.from({ length: 12 }, (_, i) => `${i}|${(i + 1) % 12}|0\n`).join('')
    const graph = await parseAsRel(`${ring}0|100|0\n`)
    const { maintained, recomputed } = both(graph, { removeLinks: [[5, 6]] })
    expect(Array.from(maintained!)).toEqual(Array.from(recomputed))
    expect(Array.from(recomputed)).toEqual(Array(13).fill(1))
  })

  it('raises a whole cycle that an added link closes', async () => {
    const path = Array.from({ length: 11 }, (_, i) => `${i}|${i + 1}|0\n`).join('')
    const graph = await parseAsRel(path)
    const { maintained, recomputed } = both(graph, { addLinks: [[11, 0]] })
    expect(Array.from(maintained!)).toEqual(Array(12).fill(2))
    expect(Array.from(recomputed)).toEqual(Array(12).fill(2))
  })

  it('equals a full recomputation on random graphs and changes', () => {
    fc.assert(
      fc.property(graphAndChange(), ({ graph, change }) => {
        const { maintained, recomputed } = both(graph, change)
        expect(maintained).toEqual(recomputed)
      }),
      { numRuns: RUNS },
    )
  })

  it('equals a full recomputation on larger random graphs (hubs, long cascades)', () => {
    fc.assert(
      fc.property(graphAndChange(150), ({ graph, change }) => {
        const { maintained, recomputed } = both(graph, change)
        expect(maintained).toEqual(recomputed)
      }),
      { numRuns: Math.ceil(RUNS / 3) },
    )
  })

  it('gives up past its budget, or answers exactly within it', () => {
    fc.assert(
      fc.property(graphAndChange(), fc.nat(200), ({ graph, change }, budget) => {
        const { maintained, recomputed } = both(graph, change, budget)
        if (maintained) expect(maintained).toEqual(recomputed)
      }),
      { numRuns: RUNS },
    )
  })

  it('answers a real file within one decomposition of work: an AS, links, both ways', async () => {
    const graph = await parseAsRel(await readFile(`${caidaDir}20130201.as-rel.txt.bz2`))
    const { shells, maxShell } = coreDecomposition(graph)
    const top = Array.from(graph.asns).filter((_, i) => shells[i] === maxShell)
    const changes: GraphChange[] = [
      { removeAsns: [174] },
      { removeAsns: [3356, top[5]!] },
      { removeLinks: [[top[0]!, top[1]!]] },
      {
        addLinks: [
          [top[0]!, 4_200_000_001],
          [graph.asns[100]!, graph.asns[40_000]!],
        ],
      },
      { removeAsns: [top[2]!], addLinks: [[top[3]!, graph.asns[30_000]!]] },
    ]
    for (const change of changes) {
      const { maintained, recomputed } = both(graph, change, 2 * graph.neighbors.length)
      expect(maintained, JSON.stringify(change)).toBeDefined()
      // where they differ, if they do (a typed array's deep comparison is slow at this size)
      const differ = recomputed.findIndex((core, i) => core !== maintained![i])
      expect(differ, JSON.stringify(change)).toBe(-1)
    }
  })
})
