/** Metadata CAIDA writes into the comment header of a snapshot. */
export interface SnapshotMetadata {
  /** ASNs of the `# input clique:` line (empty when absent). */
  inputClique: number[]
  /** ASNs of the `# inferred clique:` line (empty when absent). */
  inferredClique: number[]
  /** ASNs of the `# IXP ASes:` line (empty when absent). */
  ixpAses: number[]
}

/**
 * Compact undirected AS graph in CSR form. Node `i` is ASN `asns[i]`; `asns` is ascending.
 * The neighbours of node `i` are `neighbors[offsets[i] .. offsets[i + 1])`, as node indices,
 * ascending, both directions stored, no self-loops, no duplicates.
 */
export interface AsGraph {
  asns: Uint32Array
  /** Length `asns.length + 1`. */
  offsets: Uint32Array
  neighbors: Uint32Array
  /** Distinct undirected links after merging duplicate and reversed pairs. */
  linkCount: number
  /** `serial-2` when data lines carry a 4th (source) column. */
  format: 'serial-1' | 'serial-2'
  metadata: SnapshotMetadata
}
