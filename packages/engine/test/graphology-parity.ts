import { readFile } from 'node:fs/promises'
import type Graph from 'graphology'
import { coreNumber } from 'graphology-cores'
import { describe, expect, it } from 'vitest'
import { decomposeSnapshot, toGraph } from '../src/index.js'
import { caidaDir, caidaFiles, caidaSources } from './caida-data.js'

const referenceCores = coreNumber as unknown as (graph: Graph) => Record<string, number>

/**
 * One file of each kind the default suite checks: the oldest, the first serial-2 file, the
 * IPv6 one and the largest. `pnpm test:all` adds a few each run, `pnpm test:full` checks every file.
 */
export const PARITY_SAMPLE = [
  '19980101.as-rel.txt.bz2',
  '20151201.as-rel2.txt.bz2',
  '20220601.as-rel.v6-stable.txt.bz2',
  '20240801.as-rel.txt.bz2',
]

/**
 * Real files checked against graphology-cores on every AS. `'sample'` is {@link PARITY_SAMPLE},
 * plus, in `pnpm test:all` (CI), {@link ROTATING} more files picked afresh each run (the pick is
 * printed, and `KCORE_PARITY_SEED` repeats it); `'every'` is every file (`pnpm test:full`).
 * The reference graph is built from the parsed CSR (toGraph); AS and link counts are checked
 * against SOURCES.md independently.
 */
export function describeGraphologyParity(part: 'sample' | 'every'): void {
  const sources = caidaSources()
  const files = part === 'every' ? caidaFiles() : [...PARITY_SAMPLE, ...rotatingPick()]
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

/** How many files outside the sample `pnpm test:all` adds to it. */
const ROTATING = 3

function rotatingPick(): string[] {
  if (process.env.KCORE_TEST_LEVEL !== 'all') return []
  const rest = caidaFiles().filter((name) => !PARITY_SAMPLE.includes(name))
  const seed = Number(process.env.KCORE_PARITY_SEED ?? Math.floor(Math.random() * 2 ** 31))
  // A small LCG: the same seed picks the same files on every machine.
  let state = seed
  const picked: string[] = []
  while (picked.length < Math.min(ROTATING, rest.length)) {
    state = (state * 1103515245 + 12345) % 2 ** 31
    const name = rest[state % rest.length]!
    if (!picked.includes(name)) picked.push(name)
  }
  console.log(`graphology parity: KCORE_PARITY_SEED=${seed} adds ${picked.join(', ')}`)
  return picked
}
