import { execFileSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { decomposeSnapshot } from '../src/index.js'
import { caidaDir } from './caida-data.js'
import { externalTool } from './external-tools.js'

// NetworkX reads the bz2 itself, so this compares against a parser and an algorithm that share
// nothing with ours. Skipped where no Python has networkx, except in CI, where that fails.
const script = `
import bz2, json, sys
import networkx as nx
g = nx.Graph()
with bz2.open(sys.argv[1], 'rt') as f:
    for line in f:
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        a, b = line.split('|')[:2]
        g.add_edge(int(a), int(b))
g.remove_edges_from(list(nx.selfloop_edges(g)))
json.dump(nx.core_number(g), sys.stdout)
`

// The first Python that has NetworkX: $PYTHON, the one on PATH, then Debian's (python3-networkx).
const python = externalTool(
  'Python with NetworkX',
  [process.env.PYTHON, 'python3', '/usr/bin/python3'].filter((p): p is string => !!p),
  ['-c', 'import networkx'],
  'apt-get install python3-networkx',
)

/** Every AS of each file against NetworkX `core_number` (skipped where no Python has it). */
export function describeNetworkxParity(files: readonly string[]): void {
  describe.skipIf(!python)('NetworkX core_number parity', () => {
    it.each(files)('%s: every AS equals NetworkX', async (name) => {
      const path = `${caidaDir}${name}`
      const expected = JSON.parse(
        execFileSync(python!, ['-c', script, path], { maxBuffer: 1 << 28 }).toString(),
      ) as Record<string, number>
      const { graph, decomposition } = await decomposeSnapshot(await readFile(path))
      // the ASes that differ, if any (a deep comparison of 77k keys is slow), and the same ASes
      const differ = Array.from(graph.asns, (asn, i) => [
        asn,
        decomposition.shells[i],
        expected[asn],
      ])
      expect(differ.filter(([, ours, theirs]) => ours !== theirs)).toEqual([])
      expect(Object.keys(expected).length).toBe(graph.asns.length)
    })
  })
}
