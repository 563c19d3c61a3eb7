import type { Database } from '@kcore/db'
import { createRevisionMemo, revisionReads } from '@kcore/db'
import { ingestSnapshot } from './ingest-snapshot.js'
import type { KcoreReader, KcoreStore, KcoreStoreOptions } from './kcore-store-interface.js'
import type { TrendView } from './kcore-store-types.js'
import { migrateKcoreStore } from './migrate.js'
import { queryAsnOverview } from './query-asn-overview.js'
import { queryCore } from './query-core.js'
import { queryDistribution } from './query-distribution.js'
import { queryMovers } from './query-movers.js'
import { queryShellListHead, queryShellPages, queryShells } from './query-shell-pages.js'
import { querySnapshot, querySnapshots, queryStoredDates } from './query-snapshots.js'
import { querySnapshotCount, querySummary } from './query-summary.js'
import { queryTrends } from './query-trends.js'
import { queryRevision, REVISION_CHANNEL } from './revision.js'
import type { KcoreSchema } from './schema.js'
import { loadSnapshotShells, type ShellSource } from './stored-shells.js'
import { buildTrendSegment } from './trend-index.js'
import { createTrendReadModel } from './trend-read-model.js'
import { assertAsns, assertDateRange, assertIpVersion } from './validate.js'

/** Trend reads answered by the database's search at once while the model is behind. */
const MAX_SEARCHES_WHILE_BEHIND = 2

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
  const model = options.trendReadModel === false ? undefined : createTrendReadModel(db)
  // Every reader asks for it: concurrent askers share round trips, and on PGlite it is kept in
  // memory until a commit moves it.
  const readRevision = revisionReads(database, REVISION_CHANNEL, () => queryRevision(db))
  const memoBytes = options.memoBytes ?? 32 * 1024 * 1024
  const memo = memoBytes === false ? undefined : createRevisionMemo({ maxBytes: memoBytes })
  /** Trend reads searching the blobs in the database while the model is behind. */
  let searching = 0

  function readerAt(revision: string): KcoreReader {
    // A decoded snapshot is kept in the reader's memo, filed under its revision like any
    // answer: the research reads of one snapshot share one read of its blobs.
    const load: ShellSource = (ipVersion, date) =>
      memo
        ? memo.get(revision, `@kcore/store:shells:${ipVersion}:${date}`, () =>
            loadSnapshotShells(db, ipVersion, date),
          )
        : loadSnapshotShells(db, ipVersion, date)
    async function trends(
      ipVersion: Parameters<KcoreReader['trends']>[0],
      asns: number[],
      range?: Parameters<KcoreReader['trends']>[2],
    ): Promise<TrendView> {
      assertIpVersion(ipVersion)
      assertAsns(asns)
      assertDateRange(range)
      if (model) {
        const view = model.view(revision, ipVersion, asns, range)
        if (view) return view
        // Behind (a start, a new ingest). A few reads at a time are answered by the database's
        // search, each starting a model step once it has its answer, so the first answers come
        // at once; the rest wait for the model instead of piling searches onto the database
        // that is loading it (64 concurrent searches held a start's load back for 20 s). The
        // step follows the answer rather than running beside it: on PGlite's one connection it
        // queued behind the search anyway and the answer waited for both (~70 of the first
        // answer's ~160 ms). It is one bounded step; a close meanwhile ends it at its next
        // statement, and its failure only delays the model.
        if (searching < MAX_SEARCHES_WHILE_BEHIND) {
          searching++
          try {
            return await queryTrends(db, ipVersion, asns, range)
          } finally {
            searching--
            void model.advance()
          }
        }
        await model.catchUp()
        const caughtUp = model.view(revision, ipVersion, asns, range)
        if (caughtUp) return caughtUp
      }
      return queryTrends(db, ipVersion, asns, range)
    }
    return {
      revision,
      trends,
      memo: (key, compute) => (memo ? memo.get(revision, key, compute) : compute()),
      summary: () => querySummary(db),
      snapshots: (ipVersion) => querySnapshots(db, ipVersion),
      storedDates: (ipVersion) => queryStoredDates(db, ipVersion),
      snapshotCount: () => querySnapshotCount(db),
      snapshot: (ipVersion, date) => querySnapshot(db, ipVersion, date),
      shellPages: (ipVersion, date, options) => queryShellPages(db, load, ipVersion, date, options),
      shellListHead: (ipVersion, date, minShell) =>
        queryShellListHead(load, ipVersion, date, minShell),
      shells: (ipVersion, date, options) => queryShells(db, load, ipVersion, date, options),
      core: (ipVersion, date, select) => queryCore(load, ipVersion, date, select),
      distribution: (ipVersion, date) => queryDistribution(load, ipVersion, date),
      movers: (ipVersion, from, to, options) => queryMovers(db, ipVersion, from, to, options),
      asnOverview: (asn) => queryAsnOverview(trends, asn),
    }
  }

  return {
    dialect: database.dialect,
    ping: () => database.ping(),
    tryWithLock: (name, fn) => database.tryWithLock(name, fn),
    migrate: () => migrateKcoreStore(db),
    ingest: (snapshot, options) => ingestSnapshot(db, snapshot, options),
    vacuumShells: async (ipVersion) => assertIpVersion(ipVersion),
    loadTrendModel: async () => model?.catchUp(),
    async warm() {
      await readRevision()
      // Straight to the search, not through a reader: a reader's read would start a model step.
      for (const ipVersion of ['ipv4', 'ipv6'] as const) await queryTrends(db, ipVersion, [])
    },
    async indexTrends(ipVersion, indexOptions) {
      assertIpVersion(ipVersion)
      const built = await database.tryWithLock(`kcore:trend-index:${ipVersion}`, () =>
        buildTrendSegment(db, ipVersion, indexOptions),
      )
      return built.acquired ? built.value : 0
    },
    reader: async () => readerAt(await readRevision()),
  }
}
