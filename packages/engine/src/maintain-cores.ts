import type { AsGraph } from './as-graph.js'
import type { ResolvedChange } from './resolve-graph-change.js'
import type { ShellOrder } from './shell-order.js'

/**
 * The core numbers after `change`, updated from `shells` (the graph's) in the region the change
 * reaches, or undefined once that costs more than `budget` neighbour visits (the caller then
 * recomputes). Indexed like {@link recomputeCores}: the graph's nodes, then the added ASes'.
 *
 * Why it is exact: core numbers are the largest fixpoint of `c(v) = h(v)`, `h(v)` the largest
 * `k` such that `v` has `k` neighbours with `c ≥ k`; from any upper bound of them, lowering one
 * `c(v)` at a time to `min(c(v), h(v))` ends exactly there (the set `c ≥ k` of the end state
 * has minimum degree `k`, so lies in the k-core; and no step goes below a core number). So:
 * - removals only lower core numbers: the old ones are an upper bound, and only the nodes next
 *   to a removed node or link, then the neighbours of a lowered node whose support it took
 *   (`h < c(u) ≤` its old value), need looking at;
 * - a link added between cores `K = min(c(u), c(v))` raises at most the nodes of core `K`
 *   connected to its core-`K` end(s) through nodes of core `K` (each raised component touches
 *   the link, or it was a (K+1)-core before), by at most 1, and only nodes with more than `K`
 *   neighbours of core `≥ K` can rise: those get `K + 1` as the upper bound, then the same
 *   lowering runs. Links are added one at a time.
 */
export function maintainCores(
  graph: AsGraph,
  shells: Uint32Array,
  change: ResolvedChange,
  cut: Uint8Array | undefined,
  budget: number,
  order?: ShellOrder,
): Uint32Array | undefined {
  const { offsets, neighbors } = graph
  const n = graph.asns.length
  const total = n + change.addedAsns.length
  const { addedLinks } = change
  const core = new Uint32Array(total)
  core.set(shells)
  // A removed node keeps core 0, so the hot loops of bound() and settle() need not skip it:
  // it is below every core that counts (a node of core 0 has no support to lose, none to give).
  const removed = new Uint8Array(total)
  for (const node of change.removedNodes) {
    removed[node] = 1
    core[node] = 0
  }
  // links added so far, per node (few: the CSR stays as it is)
  const extra = new Map<number, number[]>()
  let maxCore = 0
  let maxDegree = 0
  for (let v = 0; v < n; v++) {
    if (core[v]! > maxCore) maxCore = core[v]!
    if (offsets[v + 1]! - offsets[v]! > maxDegree) maxDegree = offsets[v + 1]! - offsets[v]!
  }
  // neighbours below a node's core, by core (scratch of bound())
  const below = new Uint32Array(maxCore + addedLinks.length / 2 + 2)
  // bound()'s neighbours of core equal to the node's: the ones a drop by 1 takes support from
  const equal = new Uint32Array(maxDegree + addedLinks.length / 2 + 1)
  let equals = 0
  // neighbours of core at least the node's own, where known (a lower bound of it)
  const support = new Uint32Array(total)
  const counted = new Uint8Array(total)
  const stack = new Uint32Array(total)
  const queued = new Uint8Array(total)
  let top = 0
  let work = 0
  const push = (v: number) => {
    if (queued[v] || removed[v]) return
    queued[v] = 1
    stack[top++] = v
  }

  // `order` holds while cores only go down (no link added yet): see ShellOrder
  let ordered = order !== undefined
  /** `min(c(v), h(v))`: the largest k ≤ c(v) with k neighbours of core ≥ k (`support[v]`). */
  const bound = (v: number): number => {
    const cv = core[v]!
    let atLeast = 0
    equals = 0
    // The neighbours `order` leaves out are of core < low = c0(v) - 1 ≤ c(v): if the bound is
    // c(v), or c(v) - 1 ≥ low, they are not needed to find it (nor among the equal-core ones).
    const low = ordered && v < n ? shells[v]! - 1 : cv + 1
    if (cv >= low) {
      const { from, edges } = order!
      let oneBelow = 0
      for (let i = from[v]!, end = from[v + 1]!; i < end; i++) {
        const e = edges[i]!
        if (cut?.[e]) continue
        const u = neighbors[e]!
        const cu = core[u]!
        if (cu >= cv) {
          atLeast++
          if (cu === cv) equal[equals++] = u
        } else if (cu === cv - 1) oneBelow++
      }
      work += from[v + 1]! - from[v]!
      if (atLeast >= cv) return known(v, cv, atLeast)
      if (cv > low && atLeast + oneBelow >= cv - 1) return known(v, cv - 1, atLeast + oneBelow)
      atLeast = 0
      equals = 0
    }
    const from = v < n ? offsets[v]! : 0
    const to = v < n ? offsets[v + 1]! : 0
    for (let e = from; e < to; e++) {
      const u = neighbors[e]!
      if (cut?.[e]) continue
      const cu = core[u]!
      if (cu < cv) below[cu]!++
      else {
        atLeast++
        if (cu === cv) equal[equals++] = u
      }
    }
    const more = extra.get(v)
    if (more) {
      for (const u of more) {
        const cu = core[u]!
        if (cu < cv) below[cu]!++
        else {
          atLeast++
          if (cu === cv) equal[equals++] = u
        }
      }
    }
    work += to - from + (more?.length ?? 0)
    let k = cv
    while (k > 0 && atLeast < k) atLeast += below[--k]!
    below.fill(0, 0, cv)
    return known(v, k, atLeast)
  }

  /** Records `v`'s support (`atLeast` neighbours of core ≥ `k`) and returns its bound `k`. */
  const known = (v: number, k: number, atLeast: number): number => {
    support[v] = atLeast
    counted[v] = 1
    return k
  }

  /**
   * Lowers queued nodes to their bound until none is above it. A lowered node takes one
   * support from the neighbours whose core it counted for (`h < c(u) ≤` its old core): a known
   * count goes down by one and a node left short is queued; a node whose count is not known is
   * queued (its bound counts it). A known count is never above the truth (a raise or an added
   * link only adds support), so a node whose count holds needs no look.
   */
  const settle = (): boolean => {
    while (top > 0) {
      const v = stack[--top]!
      queued[v] = 0
      const old = core[v]!
      const h = bound(v)
      if (h === old) continue
      core[v] = h
      // a drop by 1 (the usual one) takes support from the neighbours bound() just listed
      if (h === old - 1) for (let i = 0; i < equals; i++) lose(equal[i]!, old)
      else {
        if (v < n) {
          for (let e = offsets[v]!, end = offsets[v + 1]!; e < end; e++) {
            const u = neighbors[e]!
            if (cut?.[e]) continue
            const cu = core[u]!
            if (cu > h && cu <= old) lose(u, cu)
          }
          work += offsets[v + 1]! - offsets[v]!
        }
        for (const u of extra.get(v) ?? []) {
          const cu = core[u]!
          if (cu > h && cu <= old) lose(u, cu)
        }
      }
      if (work > budget) return false
    }
    return true
  }

  /** Node `u` (of core `cu`) has lost one neighbour of core at least its own. */
  const lose = (u: number, cu: number) => {
    if (!counted[u]) push(u)
    else if (--support[u]! < cu) push(u)
  }

  /** Whether `v` has more than `k` neighbours of core at least `k`. */
  const canRise = (v: number, k: number): boolean => {
    let atLeast = 0
    if (v < n) {
      for (let e = offsets[v]!, end = offsets[v + 1]!; e < end; e++) {
        const u = neighbors[e]!
        if (!removed[u] && !cut?.[e] && core[u]! >= k) atLeast++
      }
      work += offsets[v + 1]! - offsets[v]!
    }
    for (const u of extra.get(v) ?? []) if (core[u]! >= k) atLeast++
    return atLeast > k
  }

  // removals: the old core numbers bound the new ones
  for (const node of change.removedNodes) {
    for (let e = offsets[node]!, end = offsets[node + 1]!; e < end; e++) push(neighbors[e]!)
    work += offsets[node + 1]! - offsets[node]!
  }
  for (const node of change.removedLinks) push(node)
  if (!settle()) return undefined

  // additions, one link at a time
  ordered = false
  const seen = new Uint32Array(addedLinks.length > 0 ? total : 0)
  const frontier: number[] = []
  for (let i = 0; i < addedLinks.length; i += 2) {
    const a = addedLinks[i]!
    const b = addedLinks[i + 1]!
    link(extra, a, b)
    link(extra, b, a)
    const k = Math.min(core[a]!, core[b]!)
    const mark = i / 2 + 1
    const raised: number[] = []
    const reach = (u: number) => {
      if (core[u] === k && seen[u] !== mark) {
        seen[u] = mark
        frontier.push(u)
      }
    }
    reach(a)
    reach(b)
    while (frontier.length > 0) {
      const v = frontier.pop()!
      if (!canRise(v, k)) continue
      raised.push(v)
      if (v < n) {
        for (let e = offsets[v]!, end = offsets[v + 1]!; e < end; e++) {
          const u = neighbors[e]!
          if (!removed[u] && !cut?.[e]) reach(u)
        }
      }
      for (const u of extra.get(v) ?? []) reach(u)
    }
    if (work > budget) return undefined
    for (const v of raised) {
      core[v] = k + 1
      counted[v] = 0
      push(v)
    }
    if (!settle()) return undefined
  }
  return core
}

function link(extra: Map<number, number[]>, from: number, to: number): void {
  const list = extra.get(from)
  if (list) list.push(to)
  else extra.set(from, [to])
}
