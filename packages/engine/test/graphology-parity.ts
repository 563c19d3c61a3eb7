import { readFile } from 'node:fs/promises'
import type Graph from 'graphology'
import { coreNumber } from 'graphology-cores'
import { describe, expect, it } from 'vitest'
import { decomposeSnapshot, toGraph } from '../src/index.js'
import { caidaDir, caidaFiles, caidaSources } from './caida-data.js'

const referenceCores = coreNumber as unknown as (graph: Graph) => Record<string, number>

/**
 * One file of each kind the default suite checks: the oldest, the first serial-2 file, the
 * IPv6 one (graphology-parity-sample.test.ts) and the largest (graphology-parity-largest.test.ts,
 * a file of its own for time). `pnpm test:all` adds three picked each run (one per
 * graphology-parity-pick-N.test.ts), `pnpm test:full` checks every file.
 */
export const PARITY_SAMPLE = [
  '19980101.as-rel.txt.bz2',
  '20151201.as-rel2.txt.bz2',
  '20220601.as-rel.v6-stable.txt.bz2',
]
export const PARITY_LARGEST = '20240801.as-rel.txt.bz2'

/**
 * Real files checked against graphology-cores on every AS. The reference graph is built from
 * the parsed CSR (toGraph); AS and link counts are checked against SOURCES.md independently.
 */
export function describeGraphologyParity(files: readonly string[]): void {
  const sources = caidaSources()
  if (files.length === 0) {
    it.skip('a file picked afresh each run: `pnpm test:all`', () => {})
    return
  }
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

/**
 * In `pnpm test:all` (CI), one file outside the sample picked afresh by each pick file (the
 * pick is printed, and `KCORE_PARITY_SEED` repeats it); none otherwise.
 */
export function rotatingPick(): string[] {
  if (process.env.KCORE_TEST_LEVEL !== 'all') return []
  const rest = caidaFiles().filter(
    (name) => !PARITY_SAMPLE.includes(name) && name !== PARITY_LARGEST,
  )
  const seed = Number(process.env.KCORE_PARITY_SEED ?? Math.floor(Math.random() * 2 ** 31))
  // A small LCG step: the same seed picks the same file on every machine.
  const name = rest[((seed * 1103515245 + 12345) % 2 ** 31) % rest.length]!
  console.log(`graphology parity: KCORE_PARITY_SEED=${seed} adds ${name}`)
  return [name]
}
