import { type Migration, sql } from 'kysely'
import { createBumpRevision } from './0015-one-change-log.js'
import type { AnyDb } from './any-db.js'

/** A random 31-bit stamp, drawn by the server (`random()` is seeded per backend). */
const RANDOM_STAMP = `floor(random() * 2147483647)::integer`

/**
 * A stamp per revision, drawn when the revision is made: what tells one history from another.
 * A database restored from a backup, or a replica behind, counts its next revisions with the
 * same numbers as the original did, so a feed token of revision 440 from the original would read
 * as a point of the restored history (writes since it skipped). A token carries its revision's
 * stamp; a database that has no revision of that number with that stamp did not make it.
 * Stamps below the feed's trim mark go with the changes (tokens that old are expired anyway).
 */
export const revisionStamps: Migration = {
  async up(db: AnyDb) {
    await sql`create table cal_revision_stamp (
      revision bigint primary key,
      stamp integer not null)`.execute(db)
    await sql`insert into cal_revision_stamp (revision, stamp)
      select n, ${sql.raw(RANDOM_STAMP)} from cal_revision`.execute(db)
    await createBumpRevision(
      db,
      `
        insert into cal_revision_stamp (revision, stamp) values (next, ${RANDOM_STAMP});
        if next % 64 = 0 then
          delete from cal_revision_stamp
          where revision < (select purged_through from cal_sync);
        end if;`,
    )
  },
  async down(db: AnyDb) {
    await createBumpRevision(db)
    await sql`drop table cal_revision_stamp`.execute(db)
  },
}
