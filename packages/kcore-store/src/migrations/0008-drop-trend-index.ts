import { type Kysely, type Migration, sql } from 'kysely'
import { trendIndex } from './0007-trend-index.js'

/**
 * Drops the trend index of `0007_trend_index`. Trend reads come from the in-memory read model
 * at the data revision, and while it loads from the fence search of the stored blobs; an index
 * fresh by each snapshot's content stamp was a second rule of freshness beside the revision,
 * and a second copy of every shell index to keep. `down` makes the empty tables again (the
 * index filled itself from the stored snapshots, so nothing is lost).
 */
export const dropTrendIndex: Migration = {
  async up<DB>(db: Kysely<DB>) {
    await sql`drop table kcore_trend_row`.execute(db)
    await sql`drop table kcore_trend_segment`.execute(db)
  },

  async down<DB>(db: Kysely<DB>) {
    await trendIndex.up(db)
  },
}
