import type { DialectName, LockResult } from '@kcore/db'
import type { IpVersion } from '@kcore/engine'
import type { AsMatch } from './as-registry/search-registry.js'
import type { AsRegistryInfo, NewAsRegistry } from './as-registry/stored-registry.js'
import type {
  AsnOverview,
  CoreAnswer,
  CoreSelector,
  DateRange,
  Distribution,
  Movers,
  MoversOptions,
  NewSnapshot,
  ShellList,
  ShellListOptions,
  ShellPage,
  ShellRow,
  SnapshotGraph,
  SnapshotGraphEntry,
  SnapshotInfo,
  TrendView,
  VersionSummary,
} from './kcore-store-types.js'

/** Options of {@link createKcoreStore}. */
export interface KcoreStoreOptions {
  /**
   * Answer trend reads from a compact in-memory copy of every shell index (~1 byte per AS and
   * snapshot, besides the decoded snapshots), which the reads bring up to the stored revision
   * as they come. Default true; false answers every trend read with the database's search of
   * the stored blobs, and holds no copy.
   */
  trendReadModel?: boolean
  /**
   * Bound in bytes of the decoded snapshots the research reads of one revision share (default
   * 32 MiB); `false` keeps none (every research read decodes its snapshot).
   */
  memoBytes?: number | false
  /**
   * Decoded snapshot graphs ({@link KcoreReader.snapshotGraph}) kept for the next reads of the
   * same revision (default 2; ~5 MB each for a 2024 snapshot); 0 keeps none.
   */
  graphMemoEntries?: number
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
   * the same IP version and date is replaced (CAIDA re-issues dates now and then).
   */
  ingest(snapshot: NewSnapshot): Promise<void>
  /**
   * Replaces the stored AS registry whole, in one transaction (readers see the old one or the
   * new one); one older than the stored registry is refused (`AsRegistryOutdatedError`).
   * `importAsRegistry` reads the files and calls it.
   */
  replaceAsRegistry(registry: NewAsRegistry): Promise<void>
  /**
   * A reader of the stored data at its committed revision, read once here (concurrent callers
   * share the round trip; none on PGlite while nothing is written). Every read of a request goes
   * through one reader: its revision is the one a host keys the answer's ETag and any cache of
   * answers by.
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
   * {@link revision} (no query); while it catches up (after a start or an ingest), from the
   * database's search of the stored blobs. With `trendReadModel: false`, always the search.
   */
  trends(ipVersion: IpVersion, asns: number[], range?: DateRange): Promise<TrendView>

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
   * A snapshot's record, how many of its ASes have `shell_index >= minShell`, and its rows as
   * typed-array pages (ascending ASN, `pageSize` rows each, default 10,000), all from one read
   * of the snapshot: the pages finish from that content whatever is written while they are
   * read (a re-ingest of the date is there for the next reader). No connection stays checked
   * out between pages, and stopping early (`break`, `return()`) costs nothing.
   */
  shellList(ipVersion: IpVersion, date: string, options?: ShellListOptions): Promise<ShellList>
  /** The pages of {@link KcoreReader.shellList} alone. */
  shellPages(
    ipVersion: IpVersion,
    date: string,
    options?: ShellListOptions,
  ): AsyncGenerator<ShellPage>
  /** {@link KcoreReader.shellPages} one row object at a time, with `normalized_shell_index`. */
  shells(ipVersion: IpVersion, date: string, options?: ShellListOptions): AsyncGenerator<ShellRow>
  /** The k-core (`{k}`, default the snapshot's maximum) or the top-N ASes (`{top}`, 1..10000). */
  core(ipVersion: IpVersion, date: string, select?: CoreSelector): Promise<CoreAnswer>
  /** Sizes of the non-empty shells, ascending by shell index. */
  distribution(ipVersion: IpVersion, date: string): Promise<Distribution>
  /** Who entered or left the k-core between two snapshots, and the largest normalized changes. */
  movers(ipVersion: IpVersion, from: string, to: string, options?: MoversOptions): Promise<Movers>
  /**
   * First/last sighting and latest point of an AS in each version, with the AS registry's name
   * and address space; {@link AsnNotFoundError} when in no snapshot and not in the registry.
   */
  asnOverview(asn: number): Promise<AsnOverview>
  /** The stored AS registry's source, date and size, or null when none was imported. */
  asRegistry(): Promise<AsRegistryInfo | null>
  /**
   * ASes of the registry whose name (case and accents ignored) or number matches `query`, best
   * first (see `searchAsRegistry`); `limit` 1..1000, default 20.
   */
  searchAses(query: string, options?: { limit?: number }): Promise<AsMatch[]>
  /** The registry's names of `asns` (those it has). */
  asNames(asns: readonly number[]): Promise<Map<number, string>>

  // What-if reads: a snapshot's graph (its links, stored since migration 0010).

  /**
   * A stored snapshot's graph decoded, with its record and stored shell indices, all from one
   * committed state; the reads of one revision share it (a few are kept, see
   * `graphMemoEntries`). {@link SnapshotNotFoundError} when the date is not stored,
   * {@link SnapshotLinksNotStoredError} when its links are not (stored before 0010).
   */
  snapshotGraph(ipVersion: IpVersion, date: string): Promise<SnapshotGraph>
  /**
   * The graphs of the version's snapshots within `range` (inclusive), oldest first, decoded one
   * at a time as they are asked for, from the set stored when the first is asked for (one
   * replaced meanwhile is reported `replaced`, one without links `links_not_stored`). No
   * connection is held between them; stopping early (`break`, `signal`) costs nothing.
   */
  snapshotGraphs(
    ipVersion: IpVersion,
    range?: DateRange,
    options?: { signal?: AbortSignal },
  ): AsyncGenerator<SnapshotGraphEntry>
}
