import { execFileSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import Graph from 'graphology'
import { coreNumber } from 'graphology-cores'
import { describe, expect, it } from 'vitest'
import { coreDecomposition, decomposeSnapshot, parseAsRel } from '../src/index.js'
import { caidaDir, caidaFiles } from './caida-data.js'
import { externalTool } from './external-tools.js'

const referenceCores = coreNumber as unknown as (graph: Graph) => Record<string, number>
const files = caidaFiles()

const bzcat = externalTool('bzcat', ['bzcat'], ['--help'], 'apt-get install bzip2')

describe('real CAIDA snapshots', () => {
  it('finds the shared data: 40 full files, IPv6 and serial-2 among them', () => {
    expect(files.length).toBeGreaterThanOrEqual(40)
    expect(files).toContain('20130201.as-rel.txt.bz2')
    expect(files).toContain('20220601.as-rel.v6-stable.txt.bz2')
    expect(files).toContain('20240101.as-rel2.txt.bz2')
  })

  it('2013-02-01 IPv4 has max shell index 66', async () => {
    const { decomposition } = await decomposeSnapshot(
      await readFile(`${caidaDir}20130201.as-rel.txt.bz2`),
    )
    expect(decomposition.maxShell).toBe(66)
  })

  it.skipIf(!bzcat)(
    '2013-02-01 equals graphology-cores on a graph built without this parser (bzcat + split)',
    async () => {
      const text = execFileSync(bzcat!, [`${caidaDir}20130201.as-rel.txt.bz2`], {
        maxBuffer: 1 << 30,
      }).toString()
      const reference = new Graph({ type: 'undirected' })
      for (const line of text.split('\n')) {
        if (line === '' || line.startsWith('#')) continue
        const [a, b] = line.split('|') as [string, string]
        reference.mergeNode(a)
        reference.mergeNode(b)
        if (a !== b) reference.mergeUndirectedEdge(a, b)
      }
      const expected = referenceCores(reference)
      const graph = await parseAsRel(await readFile(`${caidaDir}20130201.as-rel.txt.bz2`))
      const { shells } = coreDecomposition(graph)
      expect(graph.asns.length).toBe(reference.order)
      expect(graph.linkCount).toBe(reference.size)
      const actual: Record<string, number> = {}
      graph.asns.forEach((asn, i) => {
        actual[String(asn)] = shells[i]!
      })
      expect(actual).toEqual(expected)
    },
  )
})
