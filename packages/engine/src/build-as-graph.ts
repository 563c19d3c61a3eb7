import type { AsGraph, SnapshotMetadata } from './as-graph.js'

/**
 * Builds the CSR graph from raw ASN pairs (`a0, b0, a1, b1, …`): ASNs sorted ascending,
 * self-loops dropped, duplicate and reversed pairs merged.
 */
export function buildAsGraph(
  pairs: Uint32Array,
  format: AsGraph['format'],
  metadata: SnapshotMetadata,
): AsGraph {
  const asns = uniqueSorted(pairs)
  const n = asns.length
  // one key per undirected link: low * n + high (exact in a double while n < 2^26.5)
  const keys = new Float64Array(pairs.length >>> 1)
  let k = 0
  for (let i = 0; i < pairs.length; i += 2) {
    const a = indexOf(asns, pairs[i]!)
    const b = indexOf(asns, pairs[i + 1]!)
    if (a === b) continue
    keys[k++] = a < b ? a * n + b : b * n + a
  }
  const sorted = keys.subarray(0, k).sort()
  const degree = new Uint32Array(n + 1)
  let links = 0
  for (let i = 0; i < sorted.length; i++) {
    const key = sorted[i]!
    if (i > 0 && key === sorted[i - 1]) continue
    sorted[links++] = key
    const low = Math.floor(key / n)
    degree[low]!++
    degree[key - low * n]!++
  }
  const offsets = new Uint32Array(n + 1)
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i]! + degree[i]!
  const neighbors = new Uint32Array(offsets[n]!)
  const fill = offsets.slice(0, n)
  // keys ascend by (low, high): each node's lower neighbours arrive before its higher ones,
  // and both runs ascend, so every neighbour list ends up sorted.
  for (let i = 0; i < links; i++) {
    const key = sorted[i]!
    const low = Math.floor(key / n)
    const high = key - low * n
    neighbors[fill[high]!++] = low
  }
  for (let i = 0; i < links; i++) {
    const key = sorted[i]!
    const low = Math.floor(key / n)
    const high = key - low * n
    neighbors[fill[low]!++] = high
  }
  return { asns, offsets, neighbors, linkCount: links, format, metadata }
}

function uniqueSorted(values: Uint32Array): Uint32Array {
  const sorted = values.slice().sort()
  let m = 0
  for (let i = 0; i < sorted.length; i++) {
    if (i === 0 || sorted[i] !== sorted[m - 1]) sorted[m++] = sorted[i]!
  }
  return sorted.slice(0, m)
}

function indexOf(sorted: Uint32Array, value: number): number {
  let lo = 0
  let hi = sorted.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! < value) lo = mid + 1
    else hi = mid
  }
  return lo
}
