import { describe, expect, it } from 'vitest'
import { coreDecomposition } from './core-decomposition.js'
import { parseAsRel } from './parse-as-rel.js'
import { sharedDecomposition, sharedGraph } from './shared-graph.js'

describe('sharedGraph', () => {
  it('copies the arrays into shared memory once per object, equal and apart from the original', async () => {
    const graph = await parseAsRel(new TextEncoder().encode('1|2|0\n2|3|-1\n3|1|0\n3|4|0\n'))
    const decomposition = coreDecomposition(graph)
    const shared = sharedGraph(graph)
    for (const key of ['asns', 'offsets', 'neighbors'] as const) {
      expect(shared[key].buffer).toBeInstanceOf(SharedArrayBuffer)
      expect(graph[key].buffer).not.toBeInstanceOf(SharedArrayBuffer)
      expect([...shared[key]]).toEqual([...graph[key]])
    }
    expect({ ...shared, asns: 0, offsets: 0, neighbors: 0 }).toEqual({
      ...graph,
      asns: 0,
      offsets: 0,
      neighbors: 0,
    })
    expect(sharedGraph(graph)).toBe(shared)
    expect(sharedGraph(shared).asns).toBe(shared.asns)
    const sharedCores = sharedDecomposition(decomposition)
    expect(sharedCores.shells.buffer).toBeInstanceOf(SharedArrayBuffer)
    expect([...sharedCores.shells]).toEqual([...decomposition.shells])
    expect(sharedCores.maxShell).toBe(decomposition.maxShell)
    expect(sharedDecomposition(decomposition)).toBe(sharedCores)
  })
})
