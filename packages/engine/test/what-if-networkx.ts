import { execFileSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { coreDecomposition, type GraphChange, parseAsRel, whatIf } from '../src/index.js'
import { shellOrder } from '../src/shell-order.js'
import { changeArbitrary } from '../src/what-if.fixture.js'
import { caidaDir } from './caida-data.js'
import { externalTool } from './external-tools.js'

// NetworkX reads the bz2 itself and applies each change in its own words (ASes removed with
// their links, then links removed, then links added, self-links and links to removed ASes
// left out), so this checks whatIf against a parser, a graph and an algorithm that share
// nothing with ours. The changes come on stdin; one core_number dict per change comes back.
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
kept = set(g)
out = []
for change in json.load(sys.stdin):
    # applied in place and undone after (a copy of the graph costs more than its core_number)
    gone = [a for a in set(change.get('removeAsns', [])) if a in g]
    added = {frozenset(link) for link in change.get('addLinks', [])}
    cut = [(a, b) for a in gone for b in g[a]]
    g.remove_nodes_from(gone)
    for link in {frozenset(link) for link in change.get('removeLinks', [])} - added:
        a, b = tuple(link) * (2 // len(link))
        if a != b and g.has_edge(a, b):
            g.remove_edge(a, b)
            cut.append((a, b))
    new = []
    for a, b in change.get('addLinks', []):
        if a != b and a not in gone and b not in gone and not g.has_edge(a, b):
            g.add_edge(a, b)
            new.append((a, b))
    out.append(nx.core_number(g))
    g.remove_edges_from(new)
    g.remove_nodes_from([a for a in g if g.degree(a) == 0 and a not in kept])
    g.add_nodes_from(gone)
    g.add_edges_from(cut)
json.dump(out, sys.stdout)
`

const python = externalTool(
  'Python with NetworkX',
  [process.env.PYTHON, 'python3', '/usr/bin/python3'].filter((p): p is string => !!p),
  ['-c', 'import networkx'],
  'apt-get install python3-networkx',
)

/**
 * whatIf on real files against NetworkX: for each `[file, n]`, AS 174 removed, a top-shell AS
 * removed with a top-shell link and a link to a new AS added, then `n` random changes (biased
 * to the top shell and hubs; the seed is printed, `KCORE_WHAT_IF_SEED` repeats it).
 */
export function describeWhatIfNetworkx(cases: [string, number][]): void {
  describe.skipIf(!python)('whatIf against NetworkX on real files', () => {
    it.each(cases)('%s: every AS after each change equals NetworkX', async (name, random) => {
      const path = `${caidaDir}${name}`
      const graph = await parseAsRel(await readFile(path))
      const before = coreDecomposition(graph)
      const top = Array.from(graph.asns).filter((_, i) => before.shells[i] === before.maxShell)
      const seed = Number(process.env.KCORE_WHAT_IF_SEED ?? Math.floor(Math.random() * 2 ** 31))
      console.log(`whatIf vs NetworkX on ${name}: KCORE_WHAT_IF_SEED=${seed}`)
      const changes: GraphChange[] = [
        { removeAsns: [174] },
        {
          removeAsns: [top[0]!],
          removeLinks: [[top[1]!, top[2]!]],
          addLinks: [[top[3]!, 4_200_000_000]],
        },
        ...fc.sample(changeArbitrary(graph), { numRuns: random, seed }),
      ]
      const expected = JSON.parse(
        execFileSync(python!, ['-c', script, path], {
          input: JSON.stringify(changes),
          maxBuffer: 1 << 28,
        }).toString(),
      ) as Record<string, number>[]
      // the shell order a worker keeps for a graph asked again changes no answer
      const order = shellOrder(graph, before.shells)
      changes.forEach((change, k) => {
        const result = whatIf(graph, change, { before })
        expect(whatIf(graph, change, { before, order })).toEqual(result)
        const after = new Map(Array.from(graph.asns, (asn, i) => [asn, before.shells[i]!]))
        for (const { asn, after: shell } of result.changes) {
          if (shell === null) after.delete(asn)
          else after.set(asn, shell)
        }
        // the ASes that differ, if any (a deep comparison of 77k keys is slow)
        const theirs = new Map(
          Object.entries(expected[k]!).map(([asn, shell]) => [Number(asn), shell]),
        )
        const differ = [...new Set([...after.keys(), ...theirs.keys()])].filter(
          (asn) => after.get(asn) !== theirs.get(asn),
        )
        const what = JSON.stringify(change).slice(0, 200)
        expect(
          differ.map((asn) => [asn, after.get(asn), theirs.get(asn)]),
          what,
        ).toEqual([])
        expect(result.maxShell, what).toBe([...theirs.values()].reduce((a, b) => Math.max(a, b), 0))
      })
    })
  })
}
