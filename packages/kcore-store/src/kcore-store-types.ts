import type { AsGraph, CoreDecomposition, IpVersion, SnapshotMetadata } from '@kcore/engine'

/**
 * One point of an AS's trend: its shell index in one snapshot. Points from the read model are
 * frozen and shared between answers (every AS with that shell index in that snapshot).
 */
export interface TrendPoint {
  /** Snapshot date, `YYYY-MM-DD`. */
  readonly date: string
  /** Core number of the AS in that snapshot. */
  readonly shell_index: number
  /** Largest shell index of that snapshot. */
  readonly max_shell_index: number
  /** `shell_index / max_shell_index`, full precision, in [0, 1] (0 when the maximum is 0). */
  readonly normalized_shell_index: number
}

/** One stored snapshot. */
export interface SnapshotInfo {
  date: string
  max_shell_index: number
  /** ASes in the snapshot. */
  unique_asns: number
  /** Distinct undirected links in the snapshot's graph. */
  link_count: number
  /** Where it came from, usually the CAIDA file name. */
  source: string | null
  /** When it was (last) stored, ISO 8601 UTC. */
  ingested_at: string
  /** Where the file was fetched (`null` for a local ingest or a snapshot stored before 0003). */
  source_url: string | null
  /** CAIDA serial of the file (1 or 2), `null` when unknown. */
  serial: 1 | 2 | null
  /** SHA-256 (hex) of the file as fetched, before decompression; `null` when unknown. */
  sha256: string | null
  /** The provider's Last-Modified or the local file's mtime, ISO 8601 UTC, or `null`. */
  file_modified: string | null
  /** `@kcore/engine` version that decomposed it, `null` for snapshots stored before 0003. */
  engine_version: string | null
}

/** Aggregate figures of one IP version. */
export interface VersionSummary {
  snapshot_count: number
  /** `[earliest, latest]` snapshot date. */
  date_range: [string, string]
  /** Distinct ASNs over all stored snapshots of the version. */
  total_asns: number
  /** Largest shell index over all stored snapshots of the version. */
  max_shell_index: number
}

/** A decomposed snapshot, ready to store. */
export interface NewSnapshot {
  ipVersion: IpVersion
  /** `YYYY-MM-DD`. */
  date: string
  decomposition: CoreDecomposition
  /** Distinct undirected links of the graph (`AsGraph.linkCount`). */
  linkCount: number
  /** Clique and IXP lines of the file, kept as JSON. */
  metadata?: SnapshotMetadata
  /**
   * The graph's links as `encodeGraphLinks` wrote them (`DecomposedLinks.links`), stored for
   * what-if reads ({@link KcoreReader.snapshotGraph}). Without them, a replaced snapshot's
   * stored links are deleted with it (they are another graph's).
   */
  links?: Uint8Array
  /** Where it came from, usually the CAIDA file name. */
  source?: string
  /** Where and what the file was; omitted fields are stored as `null`. */
  provenance?: NewProvenance
}

/** Provenance of a snapshot as the ingest path knows it. */
export interface NewProvenance {
  /** URL the file was downloaded from (none for a local file). */
  sourceUrl?: string | null
  /** CAIDA serial (1 or 2); default: read from `source` (`as-rel2` = 2, `as-rel` = 1). */
  serial?: 1 | 2 | null
  /** SHA-256 (hex) of the bytes as fetched. */
  sha256?: string | null
  /** Provider's Last-Modified or the file's mtime. */
  fileModified?: Date | null
  /** Default: the `@kcore/engine` version running the ingest. */
  engineVersion?: string | null
}

/** An optional, inclusive date range; an omitted end is open. */
export interface DateRange {
  start?: string
  end?: string
}

/** Answer of {@link KcoreReader.trends}. */
export interface TrendView {
  /** Earliest and latest stored date of the version, or null when none is stored. */
  dateRange: { earliest: string; latest: string } | null
  /** Points per requested ASN (every requested ASN has an entry), oldest first. */
  trends: Map<number, TrendPoint[]>
  /** The requested ASNs that appear in at least one stored snapshot of the version. */
  known: Set<number>
}

/** Options of {@link KcoreReader.shellList}, {@link KcoreReader.shellPages} and {@link KcoreReader.shells}. */
export interface ShellListOptions {
  /** Only ASes with `shell_index >= minShell` (an integer >= 0). */
  minShell?: number
  /** Rows per page, 1..100,000 (default 10,000). */
  pageSize?: number
}

/** Answer of {@link KcoreReader.shellList}: its record, count and pages are of one content. */
export interface ShellList {
  snapshot: SnapshotInfo
  /** ASes with `shell_index >= minShell`: the rows `pages` holds. */
  count: number
  /** The rows, ascending ASN, `pageSize` a page. */
  pages: AsyncGenerator<ShellPage>
}

/** One page of a snapshot's shell list: parallel arrays, ascending ASN. */
export interface ShellPage {
  asns: Uint32Array
  shells: Uint32Array
  /** The snapshot's largest shell index (to normalize). */
  maxShell: number
}

/** One AS of a snapshot's shell list. */
export interface ShellRow {
  asn: number
  shell_index: number
  /** `shell_index / max_shell_index` (0 when the maximum is 0). */
  normalized_shell_index: number
}

/** `{k}`: the k-core (`shell_index >= k`); `{top}`: the N highest shell indices, ties by ASN. */
export type CoreSelector = { k?: number } | { top: number }

/** Answer of {@link KcoreReader.core}. */
export interface CoreAnswer {
  date: string
  ip_version: IpVersion
  /** The k asked for, or with `top` the lowest shell index among the chosen ASes (0 if none). */
  k: number
  max_shell_index: number
  count: number
  /** Ascending. */
  asns: number[]
}

/** Answer of {@link KcoreReader.distribution}. */
export interface Distribution {
  date: string
  ip_version: IpVersion
  max_shell_index: number
  unique_asns: number
  link_count: number
  shells: { shell_index: number; count: number }[]
}

/** Options of {@link KcoreReader.movers}. */
export interface MoversOptions {
  /** The core compared (default: the maximum shell index of `to`). */
  k?: number
  /** Most risers and most fallers, 1..10000 (default 100). */
  limit?: number
}

/** An AS whose k-core membership changed; `null` where it is absent from that snapshot. */
export interface CoreMover {
  asn: number
  from_shell: number | null
  to_shell: number | null
}

/** An AS present in both snapshots whose normalized shell index changed. */
export interface RankMover {
  asn: number
  from_shell: number
  to_shell: number
  /** `to_shell / max(to) - from_shell / max(from)`. */
  change: number
}

/** Answer of {@link KcoreReader.movers}. */
export interface Movers {
  ip_version: IpVersion
  from: string
  to: string
  k: number
  /** In the k-core of `to`, not of `from`; ascending ASN. */
  entered: CoreMover[]
  /** In the k-core of `from`, not of `to`; ascending ASN. */
  left: CoreMover[]
  /** Largest positive changes first (ties by ASN), at most `limit`. */
  risers: RankMover[]
  /** Largest negative changes first (ties by ASN), at most `limit`. */
  fallers: RankMover[]
}

/** An AS in one IP version. */
export interface AsnVersionOverview {
  first_seen: string
  last_seen: string
  /** Stored snapshots the AS appears in. */
  snapshots: number
  /** Its point in the newest snapshot it appears in. */
  latest: TrendPoint
}

/** The address space an AS originates, as the AS registry says. */
export interface AsAddressSpace {
  /** Addresses, distinct /24 blocks touched, CIDR prefixes that cover them. */
  ipv4: { addresses: number; slash24s: number; prefixes: number }
  /** Distinct /48 blocks touched, CIDR prefixes that cover them. */
  ipv6: { slash48s: number; prefixes: number }
}

/** Answer of {@link KcoreReader.asnOverview}. */
export interface AsnOverview {
  asn: number
  ipv4: AsnVersionOverview | null
  ipv6: AsnVersionOverview | null
  /** The AS registry's name, or null when it has no entry for the ASN (or none is imported). */
  name: string | null
  /** The AS registry's address space, or null as `name`. */
  address_space: AsAddressSpace | null
  /** Which registry said so: its source and date; null when none is imported. */
  registry: { source: string; date: string } | null
}

/**
 * A stored snapshot's graph, decoded ({@link KcoreReader.snapshotGraph}): record, graph and
 * shell indices from one committed state. Shared by the reads that get it: never modified.
 */
export interface SnapshotGraph {
  snapshot: SnapshotInfo
  /** The stamp of the snapshot's content: changes with every (re-)ingest of its date. */
  stamp: string
  graph: AsGraph
  /** The stored shell indices, indexed as `graph.asns` (what `whatIf` takes as `before`). */
  decomposition: CoreDecomposition
}

/**
 * One snapshot of {@link KcoreReader.snapshotGraphs}: its graph, or why there is none: its
 * links are not stored (`links_not_stored`), or it was replaced or removed after the dates were
 * listed (`replaced`: the listed content is gone).
 */
export type SnapshotGraphEntry =
  | ({ date: string; status: 'ok' } & SnapshotGraph)
  | { date: string; status: 'links_not_stored' | 'replaced'; snapshot: SnapshotInfo }
