import type { DialectName, LockResult, Sized } from '@kcore/db'
import type { IpVersion } from '@kcore/engine'
import type {
  AsnOverview,
  CoreAnswer,
  CoreSelector,
  DateRange,
  Distribution,
  Movers,
  MoversOptions,
  NewSnapshot,
  ShellListHead,
  ShellListOptions,
  ShellPage,
  ShellRow,
  SnapshotInfo,
  TrendView,
  VersionSummary,
} from './kcore-store-types.js'
import type { IndexTrendsOptions } from './trend-index.js'

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
