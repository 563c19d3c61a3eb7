import type { Database } from '@kcore/db'
import { createRevisionMemo, revisionReads } from '@kcore/db'
import { searchAsRegistry } from './as-registry/search-registry.js'
import {
  queryAsEntry,
  queryAsNames,
  queryAsRegistryInfo,
  replaceAsRegistry,
} from './as-registry/stored-registry.js'
import { ingestSnapshot } from './ingest-snapshot.js'
import type { KcoreReader, KcoreStore, KcoreStoreOptions } from './kcore-store-interface.js'
import { migrateKcoreStore } from './migrate.js'
import { queryAsnOverview } from './query-asn-overview.js'
import { queryCore } from './query-core.js'
import { queryDistribution } from './query-distribution.js'
import { queryMovers } from './query-movers.js'
import { queryShellList, queryShellPages, queryShells } from './query-shell-pages.js'
import { querySnapshot, querySnapshots, queryStoredDates } from './query-snapshots.js'
import { querySummary } from './query-summary.js'
import {
  KCORE_REVISION_CHANNEL,
  parseRevisionState,
  queryRevisionState,
  type RevisionState,
} from './revision.js'
import type { KcoreSchema } from './schema.js'
import { loadSnapshotGraph, loadSnapshotGraphs } from './stored-graph.js'
import { loadSnapshotShells, type ShellSource } from './stored-shells.js'
import { createTrendReads } from './trend-reads.js'

/**
 * A {@link KcoreStore} on an open database (PostgreSQL or PGlite, same code path).
 *
 * @example
 * const database = await openDatabase({})          // in-memory PGlite
 * const store = createKcoreStore(database)
 * await store.migrate()
 * const reader = await store.reader()
 * const { trends } = await reader.trends('ipv4', [3356, 174], { start: '2010-01-01' })
 */
export function createKcoreStore(database: Database, options: KcoreStoreOptions = {}): KcoreStore {
  const db = database.db.withTables<KcoreSchema>()
  const readTrends = createTrendReads(db, { model: options.trendReadModel !== false })
  // Every reader asks for it: concurrent askers share round trips, and on PGlite it is kept in
  // memory until a commit moves it.
  const readRevision = revisionReads(
    database,
    KCORE_REVISION_CHANNEL,
    () => queryRevisionState(db),
    parseRevisionState,
  )
  const memoBytes = options.memoBytes ?? 32 * 1024 * 1024
  // Decoded snapshots, filed under the revision they were read at: the research reads of one
  // snapshot share one read of its blobs.
  const decoded = memoBytes === false ? undefined : createRevisionMemo({ maxBytes: memoBytes })
  // Decoded graphs, bounded by count (each entry weighs 1): repeated what-if questions on one
  // date decode it once per revision, and a re-ingest (a new revision) drops them.
  const graphEntries = options.graphMemoEntries ?? 2
  const graphs = graphEntries > 0 ? createRevisionMemo({ maxBytes: graphEntries }) : undefined

  function readerAt({ revision, snapshots }: RevisionState): KcoreReader {
    const load: ShellSource = (ipVersion, date) =>
      decoded
        ? decoded.get(revision, `${ipVersion}:${date}`, () =>
            loadSnapshotShells(db, ipVersion, date),
          )
        : loadSnapshotShells(db, ipVersion, date)
    const trends: KcoreReader['trends'] = (ipVersion, asns, range) =>
      readTrends(revision, ipVersion, asns, range)
    return {
      revision,
      trends,
      summary: () => querySummary(db),
      snapshots: (ipVersion) => querySnapshots(db, ipVersion),
      storedDates: (ipVersion) => queryStoredDates(db, ipVersion),
      snapshotCount: async () => snapshots,
      snapshot: (ipVersion, date) => querySnapshot(db, ipVersion, date),
      shellList: (ipVersion, date, options) => queryShellList(load, ipVersion, date, options),
      shellPages: (ipVersion, date, options) => queryShellPages(load, ipVersion, date, options),
      shells: (ipVersion, date, options) => queryShells(load, ipVersion, date, options),
      core: (ipVersion, date, select) => queryCore(load, ipVersion, date, select),
      distribution: (ipVersion, date) => queryDistribution(load, ipVersion, date),
      movers: (ipVersion, from, to, options) => queryMovers(db, ipVersion, from, to, options),
      asnOverview: (asn) =>
        queryAsnOverview(
          {
            trends,
            entry: (a) => queryAsEntry(db, a),
            registry: () => queryAsRegistryInfo(db),
          },
          asn,
        ),
      asRegistry: () => queryAsRegistryInfo(db),
      searchAses: (query, options) => searchAsRegistry(db, query, options?.limit),
      asNames: (asns) => queryAsNames(db, asns),
      snapshotGraph: async (ipVersion, date) => {
        if (!graphs) return loadSnapshotGraph(db, ipVersion, date)
        const entry = await graphs.get(revision, `${ipVersion}:${date}`, async () => ({
          value: await loadSnapshotGraph(db, ipVersion, date),
          byteLength: 1,
        }))
        return entry.value
      },
      snapshotGraphs: (ipVersion, range, options) =>
        loadSnapshotGraphs(db, ipVersion, range, options?.signal),
    }
  }

  return {
    dialect: database.dialect,
    ping: () => database.ping(),
    tryWithLock: (name, fn) => database.tryWithLock(name, fn),
    migrate: () => migrateKcoreStore(db),
    ingest: (snapshot) => ingestSnapshot(db, snapshot),
    replaceAsRegistry: (registry) => replaceAsRegistry(db, registry),
    reader: async () => readerAt(await readRevision()),
  }
}
