import type { AsGraph } from './as-graph.js'
import type { AsLink, GraphChange } from './graph-change.js'
import { MAX_ASN } from './max-asn.js'
import { sortedIndexOf } from './sorted-index-of.js'

/**
 * A {@link GraphChange} in node numbers, reduced to what it changes. Nodes `0 .. n-1` are the
 * graph's; node `n + i` is `addedAsns[i]`. Link pairs are flat (`u0, v0, u1, v1, …`), `u < v`.
 */
export interface ResolvedChange {
  /** The graph's nodes removed, distinct, ascending. */
  removedNodes: Uint32Array
  /** Links of the graph removed by name (not those that go with a removed node). */
  removedLinks: Uint32Array
  /** ASNs not in the graph that added links bring in, ascending. */
  addedAsns: Uint32Array
  /** Links not in the graph that are added. */
  addedLinks: Uint32Array
  /** Entries of `removeAsns` that change nothing: not in the graph, or repeated. */
  ignoredAsns: number
  /** Entries of `removeLinks` and `addLinks` that change nothing (see {@link resolveGraphChange}). */
  ignoredLinks: number
}

/**
 * Resolves `change` against `graph`. An entry that changes nothing is counted as ignored, never
 * an error: a removed AS that is not in the graph or is named again; a self-link (the parser
 * drops them too); a link named again, either way round; a link to remove that is not in the
 * graph or goes anyway with a removed AS; a link to add that is already there or touches a
 * removed AS; a link both removed and added is kept (additions come after removals), so the
 * removal is ignored, and the addition too when the link was there.
 *
 * @throws {TypeError} when a list is not an array or a link is not a pair;
 * {@link RangeError} when an AS number is not an integer in 0 … {@link MAX_ASN}.
 */
export function resolveGraphChange(graph: AsGraph, change: GraphChange): ResolvedChange {
  const { asns } = graph
  const n = asns.length
  const removeAsns = distinct(asList(change.removeAsns, 'removeAsns').map(checkAsn('removeAsns')))
  const removeLinks = linkList(change.removeLinks, 'removeLinks')
  const addLinks = linkList(change.addLinks, 'addLinks')
  let ignoredAsns = (change.removeAsns?.length ?? 0) - removeAsns.length
  let ignoredLinks = removeLinks.ignored + addLinks.ignored

  const removed = new Uint8Array(n)
  const removedNodes: number[] = []
  for (const asn of removeAsns) {
    const node = sortedIndexOf(asns, asn)
    if (node < 0) ignoredAsns++
    else {
      removed[node] = 1
      removedNodes.push(node)
    }
  }
  const isRemovedAsn = (asn: number) => sortedIndexOf(removeAsns, asn) >= 0
  const added = new Set(addLinks.keys)

  const removedLinks: number[] = []
  for (const [a, b] of removeLinks.links) {
    const u = sortedIndexOf(asns, a)
    const v = sortedIndexOf(asns, b)
    const kept = added.has(linkKey(a, b))
    if (kept || u < 0 || v < 0 || removed[u] || removed[v] || !hasLink(graph, u, v)) ignoredLinks++
    else removedLinks.push(u, v)
  }

  const newAsns = new Set<number>()
  const toAdd: AsLink[] = []
  for (const [a, b] of addLinks.links) {
    if (isRemovedAsn(a) || isRemovedAsn(b)) {
      ignoredLinks++
      continue
    }
    const u = sortedIndexOf(asns, a)
    const v = sortedIndexOf(asns, b)
    if (u >= 0 && v >= 0 && hasLink(graph, u, v)) {
      ignoredLinks++
      continue
    }
    if (u < 0) newAsns.add(a)
    if (v < 0) newAsns.add(b)
    toAdd.push([a, b])
  }
  const addedAsns = Uint32Array.from(newAsns).sort()
  const nodeOf = (asn: number) => {
    const node = sortedIndexOf(asns, asn)
    return node >= 0 ? node : n + sortedIndexOf(addedAsns, asn)
  }
  const addedLinks = new Uint32Array(toAdd.length * 2)
  toAdd.forEach(([a, b], i) => {
    const u = nodeOf(a)
    const v = nodeOf(b)
    addedLinks[2 * i] = Math.min(u, v)
    addedLinks[2 * i + 1] = Math.max(u, v)
  })
  return {
    removedNodes: Uint32Array.from(removedNodes),
    removedLinks: Uint32Array.from(removedLinks),
    addedAsns,
    addedLinks,
    ignoredAsns,
    ignoredLinks,
  }
}

/** Whether nodes `u` and `v` are linked: a binary search in the shorter neighbour list. */
export function hasLink(graph: AsGraph, u: number, v: number): boolean {
  const { offsets, neighbors } = graph
  const [from, to] =
    offsets[u + 1]! - offsets[u]! <= offsets[v + 1]! - offsets[v]! ? [u, v] : [v, u]
  return sortedIndexOf(neighbors, to, offsets[from]!, offsets[from + 1]!) >= 0
}

function asList<T>(value: readonly T[] | undefined, name: string): readonly T[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) throw new TypeError(`${name} must be an array`)
  return value
}

function checkAsn(name: string) {
  return (value: unknown, i: number): number => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_ASN) {
      throw new RangeError(
        `${name}[${i}] is not an AS number (an integer from 0 to ${MAX_ASN}): ${String(value)}`,
      )
    }
    return value
  }
}

/** Distinct values, ascending. */
function distinct(values: readonly number[]): Uint32Array {
  const sorted = Uint32Array.from(values).sort()
  let write = 0
  for (let i = 0; i < sorted.length; i++) {
    if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[write++] = sorted[i]!
  }
  return sorted.slice(0, write)
}

/** A link's key: its two ASNs, smaller first (a number would not hold two 32-bit ASNs). */
function linkKey(a: number, b: number): string {
  return a < b ? `${a} ${b}` : `${b} ${a}`
}

/** A list of links checked, each once (smaller ASN first), without self-links. */
function linkList(value: readonly AsLink[] | undefined, name: string) {
  const list = asList(value, name)
  const keys = new Set<string>()
  const links: AsLink[] = []
  list.forEach((link, i) => {
    if (!Array.isArray(link) || link.length !== 2) {
      throw new TypeError(`${name}[${i}] must be a pair of AS numbers`)
    }
    const a = checkAsn(`${name}[${i}]`)(link[0], 0)
    const b = checkAsn(`${name}[${i}]`)(link[1], 1)
    const key = linkKey(a, b)
    if (a === b || keys.has(key)) return
    keys.add(key)
    links.push(a < b ? [a, b] : [b, a])
  })
  return { links, keys, ignored: list.length - links.length }
}
