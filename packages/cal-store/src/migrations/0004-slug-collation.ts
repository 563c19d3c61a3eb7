import { type Migration, sql } from 'kysely'
import type { AnyDb } from './any-db.js'

/**
 * Slugs are ASCII `[a-z0-9-]`; the "C" collation orders them by code point, so the range
 * `slug >= 'base-' and slug < 'base.'` (every `base-…`) is one btree range scan whatever the
 * database's default collation. Before this, finding the taken `base-N` suffixes scanned the
 * whole table on every create.
 */
export const slugCollation: Migration = {
  async up(db: AnyDb) {
    for (const table of ['cal_event', 'cal_venue', 'cal_organizer', 'cal_term']) {
      await sql`alter table ${sql.table(table)} alter column slug type text collate "C"`.execute(db)
    }
  },
  async down(db: AnyDb) {
    for (const table of ['cal_event', 'cal_venue', 'cal_organizer', 'cal_term']) {
      await sql`alter table ${sql.table(table)} alter column slug type text collate "default"`.execute(
        db,
      )
    }
  },
}
