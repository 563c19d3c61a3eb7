import { readFile } from 'node:fs/promises'
import type Graph from 'graphology'
import { coreNumber } from 'graphology-cores'
import { describe, expect, it } from 'vitest'
import { decomposeSnapshot, toGraph } from '../src/index.js'
import { caidaDir, caidaFiles, caidaSources } from './caida-data.js'

const referenceCores = coreNumber as unknown as (graph: Graph) => Record<string, number>

/**
 * One file of each kind the default suite checks: the oldest, the first serial-2 file, the
 * IPv6 one and the largest. The slow suites check every other file.
 */
export const PARITY_SAMPLE = [
  '19980101.as-rel.txt.bz2',
  '20151201.as-rel2.txt.bz2',
  '20220601.as-rel.v6-stable.txt.bz2',
  '20240801.as-rel.txt.bz2',
]

/**
 * Every AS of every full file in `part` against graphology-cores: `'sample'` is
 * {@link PARITY_SAMPLE}; 0 and 1 split the rest in two (every other file), so the two slow test
 * files share the work across workers. The reference graph is built from the parsed CSR
 * (toGraph); AS and link counts are checked against SOURCES.md independently.
 */
export function describeGraphologyParity(part: 'sample' | 0 | 1): void {
  const sources = caidaSources()
  const rest = caidaFiles().filter((name) => !PARITY_SAMPLE.includes(name))
  const files = part === 'sample' ? PARITY_SAMPLE : rest.filter((_, i) => i % 2 === part)
  describe.each(files)('%s', (name) => {
    it('has the ASes of SOURCES.md and equals graphology-cores on every AS', async () => {
      const { graph, decomposition } = await decomposeSnapshot(await readFile(`${caidaDir}${name}`))
      const source = sources.get(name)
      expect(source, `${name} in SOURCES.md`).toBeDefined()
      expect(graph.asns.length).toBe(source!.ases)
      expect(graph.linkCount).toBeLessThanOrEqual(source!.links)
      expect(graph.linkCount).toBeGreaterThan(source!.links * 0.95)
      expect(graph.format).toBe(name.includes('as-rel2') ? 'serial-2' : 'serial-1')
      const expected = referenceCores(toGraph(graph))
      let mismatches = 0
      let max = 0
      for (let i = 0; i < graph.asns.length; i++) {
        const shell = decomposition.shells[i]!
        if (expected[String(graph.asns[i])] !== shell) mismatches++
        if (shell > max) max = shell
      }
      expect(mismatches).toBe(0)
      expect(Object.keys(expected).length).toBe(graph.asns.length)
      expect(decomposition.maxShell).toBe(max)
    })
  })
}
