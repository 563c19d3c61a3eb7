import type { Database } from '@kcore/db'
import type { CoreDecomposition, IpVersion, SnapshotMetadata } from '@kcore/engine'
import type { Kysely } from 'kysely'
import { ingestSnapshot } from './ingest-snapshot.js'
import { migrateKcoreStore } from './migrate.js'
import { queryKnownAsns } from './query-known-asns.js'
import { queryDateRange, querySnapshots, queryStoredDates } from './query-snapshots.js'
import { querySnapshotCount, querySummary } from './query-summary.js'
import { queryTrends } from './query-trends.js'
import { queryRevision } from './revision.js'
import type { KcoreSchema } from './schema.js'

/** One point of an AS's trend: its shell index in one snapshot. */
export interface TrendPoint {
  /** Snapshot date, `YYYY-MM-DD`. */
  date: string
  /** Core number of the AS in that snapshot. */
  shell_index: number
  /** Largest shell index of that snapshot. */
  max_shell_index: number
  /** `shell_index / max_shell_index`, full precision, in [0, 1] (0 when the maximum is 0). */
  normalized_shell_index: number
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
}

/** An optional, inclusive date range; an omitted end is open. */
export interface DateRange {
  start?: string
  end?: string
}

/**
 * Typed access to stored k-core snapshots. Create it with {@link createKcoreStore}; call
 * {@link KcoreStore.migrate} once before anything else.
 */
export interface KcoreStore {
  /** The database it works on (the caller owns it and closes it). */
  readonly database: Database
  /** Creates or updates the tables. Idempotent, and safe when several processes start at once. */
  migrate(): Promise<void>
  /**
   * Stores one snapshot in one transaction: whole or not at all. A snapshot already stored for
   * the same IP version and date is replaced (CAIDA re-issues dates now and then).
   */
  ingest(snapshot: NewSnapshot): Promise<void>
  /**
   * Shell-index trends of the given ASNs (duplicates ignored), oldest first, within `range`
   * (inclusive; omitted ends are open). The map has a key for every requested ASN, with an
   * empty array where the AS has no point in the range.
   */
  trends(
    ipVersion: IpVersion,
    asns: number[],
    range?: DateRange,
  ): Promise<Map<number, TrendPoint[]>>
  /** The subset of `asns` that appears in at least one stored snapshot of the version. */
  knownAsns(ipVersion: IpVersion, asns: number[]): Promise<Set<number>>
  /** Earliest and latest stored date of the version, or null when none is stored. */
  dateRange(ipVersion: IpVersion): Promise<{ earliest: string; latest: string } | null>
  /** One entry per IP version that has at least one snapshot. */
  summary(): Promise<Partial<Record<IpVersion, VersionSummary>>>
  /** Stored snapshots of the version, oldest first. */
  snapshots(ipVersion: IpVersion): Promise<SnapshotInfo[]>
  /** Stored dates of the version, oldest first. */
  storedDates(ipVersion: IpVersion): Promise<string[]>
  /** Stored snapshots over both IP versions. */
  snapshotCount(): Promise<number>
  /**
   * The data revision: an opaque decimal string that every ingest changes in its own
   * transaction, in whatever process it runs. Equal revisions mean equal stored data, so
   * caches and ETags key on it. One primary-key read.
   */
  revision(): Promise<string>
}

/**
 * A {@link KcoreStore} on an open database (PostgreSQL or PGlite, same code path).
 *
 * @example
 * const database = await openDatabase({})          // in-memory PGlite
 * const store = createKcoreStore(database)
 * await store.migrate()
 * const trends = await store.trends('ipv4', [3356, 174], { start: '2010-01-01' })
 */
export function createKcoreStore(database: Database): KcoreStore {
  const db = database.db as Kysely<KcoreSchema>
  return {
    database,
    migrate: () => migrateKcoreStore(db),
    ingest: (snapshot) => ingestSnapshot(db, snapshot),
    trends: (ipVersion, asns, range) => queryTrends(db, ipVersion, asns, range),
    knownAsns: (ipVersion, asns) => queryKnownAsns(db, ipVersion, asns),
    dateRange: (ipVersion) => queryDateRange(db, ipVersion),
    summary: () => querySummary(db),
    snapshots: (ipVersion) => querySnapshots(db, ipVersion),
    storedDates: (ipVersion) => queryStoredDates(db, ipVersion),
    snapshotCount: () => querySnapshotCount(db),
    revision: () => queryRevision(db),
  }
}
