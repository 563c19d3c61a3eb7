import fc from 'fast-check'
import type { AsGraph } from './as-graph.js'
import { buildAsGraph } from './build-as-graph.js'
import { coreDecomposition } from './core-decomposition.js'
import type { AsLink, GraphChange } from './graph-change.js'

const noMetadata = { inputClique: [], inferredClique: [], ixpAses: [] }

/** ASNs the generated graphs use: small ones, large ones (the largest too). */
const ASN_POOL = [
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 174,
  3356, 4_200_000_000, 4_294_967_294, 4_294_967_295,
]

/**
 * A random graph over {@link ASN_POOL} (or `nodes` node numbers when given): a clique (the top
 * shell), a hub or two with random spokes, sparse random links and isolated ASes.
 */
export function graphArbitrary(nodes = ASN_POOL.length): fc.Arbitrary<AsGraph> {
  const node = fc.integer({ min: 0, max: nodes - 1 })
  return fc
    .record({
      clique: fc.uniqueArray(node, { maxLength: 9 }),
      hubs: fc.array(fc.tuple(node, fc.uniqueArray(node, { maxLength: nodes })), { maxLength: 2 }),
      links: fc.array(fc.tuple(node, node), { maxLength: nodes * 3 }),
      alone: fc.array(node, { maxLength: 3 }),
    })
    .map(({ clique, hubs, links, alone }) => {
      const pairs: number[] = []
      for (const a of clique) for (const b of clique) if (a < b) pairs.push(a, b)
      for (const [hub, spokes] of hubs) for (const s of spokes) pairs.push(hub, s)
      for (const [a, b] of links) pairs.push(a, b)
      for (const a of alone) pairs.push(a, a)
      const asns = nodes === ASN_POOL.length ? pairs.map((p) => ASN_POOL[p]!) : pairs
      return buildAsGraph(new Uint32Array(asns), 'serial-1', noMetadata)
    })
}

/** The graph's links, each once (smaller ASN first). */
export function linksOf(graph: AsGraph): AsLink[] {
  const { asns, offsets, neighbors } = graph
  const links: AsLink[] = []
  for (let v = 0; v < asns.length; v++) {
    for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
      if (neighbors[e]! > v) links.push([asns[v]!, asns[neighbors[e]!]!])
    }
  }
  return links
}

/**
 * A random change to `graph`, biased to what moves core numbers: top-shell ASes and their links,
 * hubs, every AS at once; and to what changes nothing: ASes not in the graph (the largest ASN
 * too), self-links, links that are not there or already there, repeats and reversals.
 */
export function changeArbitrary(graph: AsGraph): fc.Arbitrary<GraphChange> {
  const { shells, maxShell } = coreDecomposition(graph)
  const asns = Array.from(graph.asns)
  const degree = (i: number) => graph.offsets[i + 1]! - graph.offsets[i]!
  const top = asns.filter((_, i) => shells[i] === maxShell)
  let maxDegree = 0
  for (let i = 0; i < asns.length; i++) maxDegree = Math.max(maxDegree, degree(i))
  const hubs = asns.filter((_, i) => degree(i) === maxDegree)
  const links = linksOf(graph)
  const topLinks = links.filter(([a, b]) => top.includes(a) && top.includes(b))
  const outside = fc.oneof(
    fc.constantFrom(...ASN_POOL),
    fc.constantFrom(0, 4_294_967_295, 1_000_000),
  )
  const asn = fc.oneof(...[top, hubs, asns].filter((list) => list.length > 0).map(oneOf), outside)
  const anyLink = fc.tuple(asn, asn)
  const existing = [links, topLinks].filter((list) => list.length > 0).map(oneOf)
  const link: fc.Arbitrary<AsLink> = fc
    .tuple(fc.oneof(anyLink, ...existing), fc.boolean())
    .map(([[a, b], flip]) => (flip ? [b, a] : [a, b]))
  const self = asn.map((a): AsLink => [a, a])
  const linkList = fc
    .array(fc.oneof({ arbitrary: link, weight: 4 }, { arbitrary: self, weight: 1 }), {
      maxLength: 8,
    })
    .chain((list) =>
      // repeats: some entries again, either way round
      fc.subarray(list).map((again) => [...list, ...again.map(([a, b]): AsLink => [b, a])]),
    )
  const removeAsns = fc.oneof(
    { arbitrary: fc.array(asn, { maxLength: 5 }), weight: 8 },
    { arbitrary: fc.constant(asns), weight: 1 },
    { arbitrary: fc.constant(top), weight: 1 },
  )
  return fc.record({ removeAsns, removeLinks: linkList, addLinks: linkList }, { requiredKeys: [] })
}

/** Any element of a non-empty list (of any length: no spread of it as arguments). */
function oneOf<T>(list: readonly T[]): fc.Arbitrary<T> {
  return fc.nat(list.length - 1).map((i) => list[i]!)
}
