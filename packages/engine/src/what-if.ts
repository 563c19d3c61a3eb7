import type { AsGraph } from './as-graph.js'
import { type CoreDecomposition, coreDecomposition } from './core-decomposition.js'
import { cutLinks } from './cut-links.js'
import type { GraphChange } from './graph-change.js'
import { maintainCores } from './maintain-cores.js'
import { recomputeCores } from './recompute-cores.js'
import { type ResolvedChange, resolveGraphChange } from './resolve-graph-change.js'
import type { ShellOrder } from './shell-order.js'

/** One AS whose shell index a change moves. */
export interface ShellChange {
  asn: number
  /** Its shell index in the graph; `null` for an AS an added link brings in. */
  before: number | null
  /** Its shell index after the change; `null` for a removed AS. */
  after: number | null
}

/** What a change did, in counts. */
export interface WhatIfCounts {
  /** ASes in the graph before and after whose shell index changed. */
  changed: number
  /** ASes of the graph removed. */
  removedAsns: number
  /** ASes that added links brought into the graph. */
  addedAsns: number
  /** Entries of `removeAsns` that changed nothing (not in the graph, or repeated). */
  ignoredAsns: number
  /** Links of the graph gone: those removed by name and those of removed ASes. */
  removedLinks: number
  /** Links not in the graph that were added. */
  addedLinks: number
  /** Entries of `removeLinks` and `addLinks` that changed nothing. */
  ignoredLinks: number
}

/** The answer of {@link whatIf}. */
export interface WhatIfResult {
  /**
   * Every AS whose shell index changes, by ascending ASN: removed ASes (`after: null`), ASes
   * brought in (`before: null`), and ASes whose shell index moved.
   */
  changes: ShellChange[]
  /** Largest shell index before the change. */
  maxShellBefore: number
  /** Largest shell index after the change (0 when no AS is left). */
  maxShell: number
  counts: WhatIfCounts
}

/** Options of {@link whatIf}. */
export interface WhatIfOptions {
  /**
   * `coreDecomposition(graph)`, when the caller has it (a stored snapshot's shell indices):
   * spares computing it again. It must be that graph's; it is not checked beyond its size.
   */
  before?: CoreDecomposition
  /**
   * @internal `shellOrder(graph, before.shells)`, when the caller keeps one for repeated
   * questions: speeds up removals. Used only with `before`, and must be made from it.
   */
  order?: ShellOrder
}

/**
 * The graph's k-core decomposition if `change` happened: which ASes change shell index (with
 * the index before and after), the new largest shell index, and counts. Pure: the graph is not
 * modified. The answer is exact: the core numbers are updated in the region the change reaches
 * (core maintenance), and recomputed on the changed graph when that region grows large.
 *
 * ASes go with every link of theirs; then links are removed, then added (see
 * {@link GraphChange}). An AS all of whose links are removed stays, in shell 0, as an AS seen
 * only in a self-link does in a parsed file. What changes nothing is counted as ignored, never
 * an error: a removed AS not in the graph or named twice; a self-link; a link named twice, either
 * way round; a link to remove that is not there; a link to add that is there or touches a
 * removed AS. A link added to an AS not in the graph brings that AS in.
 *
 * @throws {TypeError} when a list is not an array or a link not a pair of numbers;
 * {@link RangeError} when an AS number is not an integer in 0 … 4294967295, or `before` is not
 * a decomposition of a graph of that size.
 * @example
 * ```ts
 * const { changes, maxShell, counts } = whatIf(graph, { removeAsns: [174] })
 * ```
 */
export function whatIf(
  graph: AsGraph,
  change: GraphChange,
  options: WhatIfOptions = {},
): WhatIfResult {
  const before = options.before ?? coreDecomposition(graph)
  if (before.shells.length !== graph.asns.length) {
    throw new RangeError(
      `before has ${before.shells.length} shell indices for a graph of ${graph.asns.length} ASes`,
    )
  }
  const resolved = resolveGraphChange(graph, change)
  const cut = cutLinks(graph, resolved.removedLinks)
  // A removal only lowers cores, mostly by one, so maintenance stays near the change: it costs
  // ~7 ms per CSR's length of neighbour visits against ~15 ms for a recomputation (2024
  // snapshot), so it may go twice that far. Links added may raise whole shells: kept tighter.
  const csr = graph.neighbors.length
  const removalOnly = resolved.addedLinks.length === 0
  const after =
    (reachesFar(graph, resolved, removalOnly ? 1.5 * csr : csr / 8)
      ? undefined
      : maintainCores(
          graph,
          before.shells,
          resolved,
          cut,
          removalOnly ? 2 * csr : csr / 2,
          options.before && options.order,
        )) ?? recomputeCores(graph, resolved, cut)
  return describeChange(graph, before, resolved, after)
}

/**
 * Whether maintenance would visit more than `limit` neighbours: it looks at every neighbour of
 * a removed AS, each at the cost of its own links (a hub's neighbours are hubs too). On a 2024
 * snapshot, removing one hub reaches at most 0.75 × the CSR's length (and works 1.13 ×), two
 * 1.5 ×, five 3 × (working 2.5 ×: past what one recomputation costs).
 */
function reachesFar(graph: AsGraph, change: ResolvedChange, limit: number): boolean {
  const { offsets, neighbors } = graph
  let visits = change.removedLinks.length + change.addedLinks.length
  for (const v of change.removedNodes) {
    for (let e = offsets[v]!, end = offsets[v + 1]!; e < end; e++) {
      const u = neighbors[e]!
      visits += offsets[u + 1]! - offsets[u]!
    }
    if (visits > limit) return true
  }
  return false
}

/** The changes between the graph's shell indices and `after` (indexed as the change's nodes). */
function describeChange(
  graph: AsGraph,
  before: CoreDecomposition,
  change: ResolvedChange,
  after: Uint32Array,
): WhatIfResult {
  const { asns } = graph
  const n = asns.length
  const removed = new Uint8Array(n)
  for (const node of change.removedNodes) removed[node] = 1
  const changes: ShellChange[] = []
  let changed = 0
  let maxShell = 0
  const { addedAsns } = change
  let j = 0
  const addUpTo = (asn: number) => {
    for (; j < addedAsns.length && addedAsns[j]! < asn; j++) {
      const shell = after[n + j]!
      if (shell > maxShell) maxShell = shell
      changes.push({ asn: addedAsns[j]!, before: null, after: shell })
    }
  }
  for (let v = 0; v < n; v++) {
    const shell = before.shells[v]!
    if (removed[v]) {
      addUpTo(asns[v]!)
      changes.push({ asn: asns[v]!, before: shell, after: null })
      continue
    }
    const now = after[v]!
    if (now > maxShell) maxShell = now
    if (now === shell) continue
    addUpTo(asns[v]!)
    changes.push({ asn: asns[v]!, before: shell, after: now })
    changed++
  }
  addUpTo(Number.POSITIVE_INFINITY)
  return {
    changes,
    maxShellBefore: before.maxShell,
    maxShell,
    counts: {
      changed,
      removedAsns: change.removedNodes.length,
      addedAsns: addedAsns.length,
      ignoredAsns: change.ignoredAsns,
      removedLinks: change.removedLinks.length / 2 + linksOf(graph, removed, change.removedNodes),
      addedLinks: change.addedLinks.length / 2,
      ignoredLinks: change.ignoredLinks,
    },
  }
}

/** Links with at least one end among `nodes` (marked in `removed`), each counted once. */
function linksOf(graph: AsGraph, removed: Uint8Array, nodes: Uint32Array): number {
  const { offsets, neighbors } = graph
  let links = 0
  for (const v of nodes) {
    for (let e = offsets[v]!, end = offsets[v + 1]!; e < end; e++) {
      const u = neighbors[e]!
      if (!removed[u] || u > v) links++
    }
  }
  return links
}
