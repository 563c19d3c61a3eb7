import { type Migration, sql } from 'kysely'
import type { AnyDb } from './any-db.js'

/**
 * Event search text: title, description and excerpt lowercased into one stored column, joined
 * by newlines (search words never contain white space, so no word spans two fields). One LIKE
 * per word on it costs about half of three ILIKEs on the separate columns.
 */
export const searchText: Migration = {
  async up(db: AnyDb) {
    await sql`alter table cal_event add column search_text text generated always as
      (lower(title || E'\n' || description || E'\n' || excerpt)) stored`.execute(db)
  },
  async down(db: AnyDb) {
    await sql`alter table cal_event drop column search_text`.execute(db)
  },
}
