import type { DialectName, LockResult, Sized } from '@kcore/db'
import type { CoreDecomposition, IpVersion, SnapshotMetadata } from '@kcore/engine'
import type { IndexTrendsOptions } from './trend-index.js'

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

/** Options of {@link createKcoreStore}. */
export interface KcoreStoreOptions {
  /**
   * Answer trend reads from a compact in-memory copy of every shell index (~1 byte per AS and
   * snapshot, besides the decoded snapshots), which reads finding it behind bring up to the
   * stored revision. Default true; false answers every trend read with the database's search
   * of the stored blobs.
   */
  trendReadModel?: boolean
  /**
   * Bound of {@link KcoreReader.memo} in bytes (default 32 MiB); `false` keeps nothing (every
   * `memo` call computes).
   */
  memoBytes?: number | false
}

/**
 * Typed access to stored k-core snapshots. Create it with {@link createKcoreStore}; call
 * {@link KcoreStore.migrate} once before anything else.
 */
export interface KcoreStore {
  /** The engine behind the store (the caller owns the database and closes it). */
  readonly dialect: DialectName
  /** True when the database answers a trivial query (health checks). */
  ping(): Promise<boolean>
  /**
   * Runs `fn` holding the named lock of the database, or `{ acquired: false }` at once when
   * another holder (any process) has it; `syncFromProvider` holds `REFRESH_LOCK` this way.
   */
  tryWithLock<T>(name: string, fn: () => Promise<T>): Promise<LockResult<T>>
  /** Creates or updates the tables. Idempotent, and safe when several processes start at once. */
  migrate(): Promise<void>
  /**
   * Stores one snapshot in one transaction: whole or not at all. A snapshot already stored for
   * the same IP version and date is replaced (CAIDA re-issues dates now and then). The shell
   * indices are one row of two blobs, so there is nothing to vacuum: `vacuum` is accepted for
   * hosts written before and ignored.
   */
  ingest(snapshot: NewSnapshot, options?: { vacuum?: boolean }): Promise<void>
  /**
   * Nothing since the compact storage (migration 0005): there is no row table to vacuum. Kept
   * so hosts that call it still work; it only checks `ipVersion`.
   */
  vacuumShells(ipVersion: IpVersion): Promise<void>
  /**
   * Brings the in-memory trend read model to the stored revision now instead of a step beside
   * each of the first reads (resolves at once with `trendReadModel: false`). A host may await
   * it before serving, so no client waits on the load; a read that finds the model behind a
   * later ingest still answers from SQL while it catches up.
   */
  loadTrendModel(): Promise<void>
  /**
   * Runs a trend read's statements once, for no AS (reads only; the model does not move), so
   * a new process's first trend answer does not pay for compiling them: V8's code for the read
   * and, on PGlite, the database's. A host calls it once before it serves; `@kcore/service`
   * does (its `warmUp`, with the figures).
   */
  warm(): Promise<void>
  /**
   * Adds a segment to the trend index of `ipVersion` (`trend-index.ts`) from every stored
   * snapshot no segment holds yet, when there are at least `minSnapshots` (default 32) of
   * them; returns how many it indexed (0: too few, or another process is building). A trend
   * read before the model is loaded then reads one row per AS for them instead of searching
   * each snapshot. `syncFromProvider` calls it after storing; a backfill thus ends with one.
   */
  indexTrends(ipVersion: IpVersion, options?: IndexTrendsOptions): Promise<number>
  /**
   * A reader of the stored data at its committed revision, read once here (concurrent callers
   * share the round trip; none on PGlite while nothing is written). Every read of a request goes
   * through one reader: its revision keys the answer's ETag and {@link KcoreReader.memo}, and
   * its trend reads come from the in-memory model when that is at the revision, else from SQL.
   */
  reader(): Promise<KcoreReader>
}

/**
 * The reads of a {@link KcoreStore} at one data revision. Cheap to make (one revision read) and
 * to drop: it holds no connection. An answer is never older than `revision`; it may be newer
 * when an ingest commits while it is read (the next reader sees the new revision), and each
 * answer built from several statements (a record and its rows) is read from one committed state.
 */
export interface KcoreReader {
  /**
   * The data revision: an opaque decimal string that every ingest changes in its own
   * transaction, in whatever process it runs. Equal revisions mean equal stored data.
   */
  readonly revision: string
  /**
   * Shell-index trends of the given ASNs (duplicates ignored), oldest first, within `range`
   * (inclusive; omitted ends are open), with the version's stored date range and which of `asns`
   * any snapshot of the version has. From the in-memory read model when it is at
   * {@link revision} (no query). When it is behind, two reads at a time are answered by the
   * database (the trend index, and a search of the blobs it lacks), each starting a step of
   * the model once it has its answer, and the others wait for the model to catch up (it loads
   * only the snapshots it lacks). With `trendReadModel: false`, always from the database.
   */
  trends(ipVersion: IpVersion, asns: number[], range?: DateRange): Promise<TrendView>
  /**
   * The value of `key` at this reader's revision, computed once and kept (bounded, least
   * recently used first) for later readers at the same revision; a newer revision drops it.
   * Use it for answers derived from reads (serialized JSON); `key` must say everything the
   * value depends on besides the stored data.
   */
  memo<T extends Sized>(key: string, compute: () => Promise<T>): Promise<T>

  /** One entry per IP version that has at least one snapshot. */
  summary(): Promise<Partial<Record<IpVersion, VersionSummary>>>
  /** Stored snapshots of the version, oldest first. */
  snapshots(ipVersion: IpVersion): Promise<SnapshotInfo[]>
  /** Stored dates of the version, oldest first. */
  storedDates(ipVersion: IpVersion): Promise<string[]>
  /** Stored snapshots over both IP versions. */
  snapshotCount(): Promise<number>

  // Research queries. Each one that names a date throws {@link SnapshotNotFoundError} when no
  // snapshot of the version is stored for it, and {@link InvalidQueryError} for a bad option.

  /** The stored snapshot's record with its provenance. */
  snapshot(ipVersion: IpVersion, date: string): Promise<SnapshotInfo>
  /**
   * Every AS of the snapshot as typed-array pages (ascending ASN, `pageSize` rows each, default
   * 10,000), cut from the decoded snapshot; before each page one primary-key read checks the
   * content is still the list's. No connection stays checked out between pages and stopping
   * early (`break`, `return()`) costs nothing.
   */
  shellPages(
    ipVersion: IpVersion,
    date: string,
    options?: ShellListOptions,
  ): AsyncGenerator<ShellPage>
  /**
   * The record of a snapshot, how many of its ASes have `shell_index >= minShell`, and the
   * stamp of its content, from one committed state; pass the stamp to
   * {@link KcoreReader.shellPages} so the rows are of the same content as the count.
   */
  shellListHead(ipVersion: IpVersion, date: string, minShell?: number): Promise<ShellListHead>
  /** {@link KcoreReader.shellPages} one row object at a time, with `normalized_shell_index`. */
  shells(ipVersion: IpVersion, date: string, options?: ShellListOptions): AsyncGenerator<ShellRow>
  /** The k-core (`{k}`, default the snapshot's maximum) or the top-N ASes (`{top}`, 1..10000). */
  core(ipVersion: IpVersion, date: string, select?: CoreSelector): Promise<CoreAnswer>
  /** Sizes of the non-empty shells, ascending by shell index. */
  distribution(ipVersion: IpVersion, date: string): Promise<Distribution>
  /** Who entered or left the k-core between two snapshots, and the largest normalized changes. */
  movers(ipVersion: IpVersion, from: string, to: string, options?: MoversOptions): Promise<Movers>
  /** First/last sighting and latest point of an AS in each version; {@link AsnNotFoundError} when in neither. */
  asnOverview(asn: number): Promise<AsnOverview>
}

/** Options of {@link KcoreReader.shellPages} and {@link KcoreReader.shells}. */
export interface ShellListOptions {
  /** Only ASes with `shell_index >= minShell` (an integer >= 0). */
  minShell?: number
  /** Rows per keyset page, 1..100,000 (default 10,000). */
  pageSize?: number
  /**
   * The content the pages must belong to (`shellListHead(…).stamp`); default: the content read
   * with the first page. A page of any other content throws `SnapshotChangedError`.
   */
  stamp?: string
}

/** Answer of {@link KcoreReader.shellListHead}. */
export interface ShellListHead {
  snapshot: SnapshotInfo
  /** ASes with `shell_index >= minShell`. */
  count: number
  /** Identifies the snapshot's content (changes when it is re-ingested). */
  stamp: string
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

/** Answer of {@link KcoreReader.asnOverview}. */
export interface AsnOverview {
  asn: number
  ipv4: AsnVersionOverview | null
  ipv6: AsnVersionOverview | null
}
