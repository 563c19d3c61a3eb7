import type { Database } from '@kcore/db'
import type { Kysely } from 'kysely'
import { ingestSnapshot } from './ingest-snapshot.js'
import type { KcoreStore } from './kcore-store-types.js'
import { migrateKcoreStore } from './migrate.js'
import { queryAsnOverview } from './query-asn-overview.js'
import { queryCore } from './query-core.js'
import { queryDistribution } from './query-distribution.js'
import { queryKnownAsns } from './query-known-asns.js'
import { queryMovers } from './query-movers.js'
import { queryShellPages, queryShells } from './query-shell-pages.js'
import {
  queryDateRange,
  querySnapshot,
  querySnapshots,
  queryStoredDates,
} from './query-snapshots.js'
import { querySnapshotCount, querySummary } from './query-summary.js'
import { queryTrends } from './query-trends.js'
import { queryRevision } from './revision.js'
import type { KcoreSchema } from './schema.js'

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
    snapshot: (ipVersion, date) => querySnapshot(db, ipVersion, date),
    shellPages: (ipVersion, date, options) => queryShellPages(db, ipVersion, date, options),
    shells: (ipVersion, date, options) => queryShells(db, ipVersion, date, options),
    core: (ipVersion, date, select) => queryCore(db, ipVersion, date, select),
    distribution: (ipVersion, date) => queryDistribution(db, ipVersion, date),
    movers: (ipVersion, from, to, options) => queryMovers(db, ipVersion, from, to, options),
    asnOverview: (asn) => queryAsnOverview(db, asn),
    revision: () => queryRevision(db),
  }
}
