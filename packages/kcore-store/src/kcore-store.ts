import type { Database } from '@kcore/db'
import { revisionReads } from '@kcore/db'
import type { IpVersion } from '@kcore/engine'
import { ingestSnapshot } from './ingest-snapshot.js'
import type { DateRange, KcoreStore, KcoreStoreOptions, TrendView } from './kcore-store-types.js'
import { migrateKcoreStore } from './migrate.js'
import { queryAsnOverview } from './query-asn-overview.js'
import { queryCore } from './query-core.js'
import { queryDistribution } from './query-distribution.js'
import { queryKnownAsns } from './query-known-asns.js'
import { queryMovers } from './query-movers.js'
import { queryShellListHead, queryShellPages, queryShells } from './query-shell-pages.js'
import {
  queryDateRange,
  querySnapshot,
  querySnapshots,
  queryStoredDates,
} from './query-snapshots.js'
import { querySnapshotCount, querySummary } from './query-summary.js'
import { queryTrends } from './query-trends.js'
import { queryRevision, REVISION_CHANNEL } from './revision.js'
import type { KcoreSchema } from './schema.js'
import { createTrendReadModel } from './trend-read-model.js'
import { vacuumShellTable } from './vacuum-shell-table.js'
import { assertAsns, assertDateRange, assertIpVersion } from './validate.js'

/**
 * A {@link KcoreStore} on an open database (PostgreSQL or PGlite, same code path).
 *
 * @example
 * const database = await openDatabase({})          // in-memory PGlite
 * const store = createKcoreStore(database)
 * await store.migrate()
 * const trends = await store.trends('ipv4', [3356, 174], { start: '2010-01-01' })
 */
export function createKcoreStore(database: Database, options: KcoreStoreOptions = {}): KcoreStore {
  const db = database.db.withTables<KcoreSchema>()
  const model = options.trendReadModel === false ? undefined : createTrendReadModel(db)
  // Every trend read and conditional GET asks for it: concurrent askers share round trips, and
  // on PGlite it is kept in memory until a commit moves it.
  const revision = revisionReads(database, REVISION_CHANNEL, () => queryRevision(db))

  /**
   * Answers from the read model when it is at the stored revision, else with `sql` while the
   * model advances a step beside it.
   */
  async function read<T>(
    ipVersion: IpVersion,
    asns: number[],
    range: DateRange | undefined,
    fromView: (view: TrendView) => T,
    fromSql: () => Promise<T>,
    known?: string,
  ): Promise<T> {
    assertIpVersion(ipVersion)
    assertAsns(asns)
    assertDateRange(range)
    if (!model) return fromSql()
    // A revision the caller just read (its ETag's) serves if the model is exactly there.
    const view =
      (known === undefined ? undefined : model.view(known, ipVersion, asns, range)) ??
      model.view(await revision(), ipVersion, asns, range)
    if (view) return fromView(view)
    const [answer] = await Promise.all([fromSql(), model.advance()])
    return answer
  }

  return {
    dialect: database.dialect,
    ping: () => database.ping(),
    tryWithLock: (name, fn) => database.tryWithLock(name, fn),
    migrate: () => migrateKcoreStore(db),
    ingest: (snapshot, options) => ingestSnapshot(db, snapshot, options),
    vacuumShells: (ipVersion) => vacuumShellTable(db, ipVersion),
    loadTrendModel: async () => model?.catchUp(),
    trends: (ipVersion, asns, range) =>
      read(
        ipVersion,
        asns,
        range,
        (view) => view.trends,
        () => queryTrends(db, ipVersion, asns, range),
      ),
    trendView: (ipVersion, asns, range, atRevision) =>
      read(
        ipVersion,
        asns,
        range,
        (view) => view,
        async () => {
          const [dateRange, trends, known] = await Promise.all([
            queryDateRange(db, ipVersion),
            queryTrends(db, ipVersion, asns, range),
            queryKnownAsns(db, ipVersion, asns),
          ])
          return { dateRange, trends, known }
        },
        atRevision,
      ),
    knownAsns: (ipVersion, asns) =>
      read(
        ipVersion,
        asns,
        undefined,
        (view) => view.known,
        () => queryKnownAsns(db, ipVersion, asns),
      ),
    dateRange: (ipVersion) =>
      read(
        ipVersion,
        [],
        undefined,
        (view) => view.dateRange,
        () => queryDateRange(db, ipVersion),
      ),
    summary: () => querySummary(db),
    snapshots: (ipVersion) => querySnapshots(db, ipVersion),
    storedDates: (ipVersion) => queryStoredDates(db, ipVersion),
    snapshotCount: () => querySnapshotCount(db),
    snapshot: (ipVersion, date) => querySnapshot(db, ipVersion, date),
    shellPages: (ipVersion, date, options) => queryShellPages(db, ipVersion, date, options),
    shellListHead: (ipVersion, date, minShell) => queryShellListHead(db, ipVersion, date, minShell),
    shells: (ipVersion, date, options) => queryShells(db, ipVersion, date, options),
    core: (ipVersion, date, select) => queryCore(db, ipVersion, date, select),
    distribution: (ipVersion, date) => queryDistribution(db, ipVersion, date),
    movers: (ipVersion, from, to, options) => queryMovers(db, ipVersion, from, to, options),
    asnOverview: (asn) => queryAsnOverview(db, asn),
    revision,
  }
}
