import type { IpVersion } from '@kcore/engine'
import type { Kysely } from 'kysely'
import type { DateRange, TrendView } from './kcore-store-types.js'
import { queryTrends } from './query-trends.js'
import type { KcoreSchema } from './schema.js'
import { createTrendReadModel } from './trend-read-model.js'
import { assertAsns, assertDateRange, assertIpVersion } from './validate.js'

/** Trend reads answered by the database's search at once while the model is behind. */
const MAX_SEARCHES_WHILE_BEHIND = 2

/** A trend read at one data revision (see {@link createTrendReads}). */
export type TrendRead = (
  revision: string,
  ipVersion: IpVersion,
  asns: number[],
  range?: DateRange,
) => Promise<TrendView>

/**
 * The one trend read of a store: from the in-memory read model when it is at the reader's
 * revision; when it is behind (a start, an ingest in any process), a few reads at a time are
 * answered by the search of the stored blobs (`query-trends.ts`), each starting a model step
 * once it has its answer, and the others wait for the model to catch up. The step follows the
 * answer rather than running beside it, since on PGlite's one connection it would queue behind
 * the search and the answer would wait for both; searches are bounded so they do not pile onto
 * the database that is loading the model. `model: false`: always the search.
 */
export function createTrendReads(db: Kysely<KcoreSchema>, options: { model: boolean }): TrendRead {
  const model = options.model ? createTrendReadModel(db) : undefined
  let searching = 0
  return async (revision, ipVersion, asns, range) => {
    assertIpVersion(ipVersion)
    assertAsns(asns)
    assertDateRange(range)
    if (!model) return queryTrends(db, ipVersion, asns, range)
    const view = model.view(revision, ipVersion, asns, range)
    if (view) return view
    if (searching < MAX_SEARCHES_WHILE_BEHIND) {
      searching++
      try {
        return await queryTrends(db, ipVersion, asns, range)
      } finally {
        searching--
        // One bounded step: a close meanwhile ends it at its next statement, and its failure
        // only delays the model.
        void model.advance()
      }
    }
    await model.catchUp()
    return model.view(revision, ipVersion, asns, range) ?? queryTrends(db, ipVersion, asns, range)
  }
}
