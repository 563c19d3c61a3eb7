import { type Migration, sql } from 'kysely'
import type { AnyDb } from './any-db.js'

/** The status of every post-like record (`status.ts`'s `POST_STATUSES`, frozen here). */
const STATUS_CHECK = sql`status in ('publish', 'draft', 'pending', 'private', 'future', 'trash')`

export const initial: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('cal_venue')
      .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
      .addColumn('author', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) => c.notNull().check(STATUS_CHECK))
      .addColumn('created', 'timestamptz', (c) => c.notNull())
      .addColumn('modified', 'timestamptz', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('image', 'text')
      .addColumn('show_map', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('show_map_link', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('address', 'text')
      .addColumn('city', 'text')
      .addColumn('country', 'text')
      .addColumn('province', 'text')
      .addColumn('state', 'text')
      .addColumn('zip', 'text')
      .addColumn('phone', 'text')
      .addColumn('website', 'text')
      .addColumn('geo_lat', 'double precision', (c) => c.check(sql`geo_lat between -90 and 90`))
      .addColumn('geo_lng', 'double precision', (c) => c.check(sql`geo_lng between -180 and 180`))
      .execute()
    await sql`create index cal_venue_name_idx on cal_venue (lower(name), id)`.execute(db)

    await db.schema
      .createTable('cal_organizer')
      .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
      .addColumn('author', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) => c.notNull().check(STATUS_CHECK))
      .addColumn('created', 'timestamptz', (c) => c.notNull())
      .addColumn('modified', 'timestamptz', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('image', 'text')
      .addColumn('phone', 'text')
      .addColumn('website', 'text')
      .addColumn('email', 'text')
      .execute()
    await sql`create index cal_organizer_name_idx on cal_organizer (lower(name), id)`.execute(db)

    await db.schema
      .createTable('cal_term')
      .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
      .addColumn('taxonomy', 'text', (c) =>
        c.notNull().check(sql`taxonomy in ('cal_event_category', 'cal_event_tag')`),
      )
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('parent_id', 'integer', (c) => c.references('cal_term.id').onDelete('set null'))
      .addUniqueConstraint('cal_term_slug_uq', ['taxonomy', 'slug'])
      .execute()
    // The sibling rule, enforced by the database too (two concurrent creates cannot both win).
    await sql`create unique index cal_term_sibling_name_uq
      on cal_term (taxonomy, coalesce(parent_id, 0), lower(name))`.execute(db)
    await db.schema.createIndex('cal_term_parent_idx').on('cal_term').column('parent_id').execute()

    await db.schema
      .createTable('cal_event')
      .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
      .addColumn('author', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) => c.notNull().check(STATUS_CHECK))
      .addColumn('created', 'timestamptz', (c) => c.notNull())
      .addColumn('modified', 'timestamptz', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('excerpt', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('image', 'text')
      .addColumn('all_day', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('start_utc', 'timestamptz', (c) => c.notNull())
      .addColumn('end_utc', 'timestamptz', (c) => c.notNull())
      .addColumn('timezone', 'text', (c) => c.notNull())
      .addColumn('cost', 'text')
      .addColumn('website', 'text')
      .addColumn('show_map', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('show_map_link', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('hide_from_listings', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('sticky', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('featured', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('ticketed', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('post_parent', 'integer', (c) => c.references('cal_event.id').onDelete('set null'))
      .addColumn('password_hash', 'text')
      .addColumn('venue_id', 'integer', (c) => c.references('cal_venue.id').onDelete('set null'))
      .addCheckConstraint('cal_event_end_after_start', sql`end_utc >= start_utc`)
      .execute()
    // Date window: ordered scans by start (the list order) and by end (the overlap's other side).
    await sql`create index cal_event_start_idx on cal_event (start_utc, id)`.execute(db)
    await sql`create index cal_event_end_idx on cal_event (end_utc)`.execute(db)
    await db.schema.createIndex('cal_event_venue_idx').on('cal_event').column('venue_id').execute()
    await db.schema
      .createIndex('cal_event_parent_idx')
      .on('cal_event')
      .column('post_parent')
      .execute()

    await db.schema
      .createTable('cal_event_organizer')
      .addColumn('event_id', 'integer', (c) =>
        c.notNull().references('cal_event.id').onDelete('cascade'),
      )
      .addColumn('organizer_id', 'integer', (c) =>
        c.notNull().references('cal_organizer.id').onDelete('cascade'),
      )
      .addColumn('position', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('cal_event_organizer_pk', ['event_id', 'organizer_id'])
      .execute()
    await sql`create index cal_event_organizer_rev_idx
      on cal_event_organizer (organizer_id, event_id)`.execute(db)

    await db.schema
      .createTable('cal_event_term')
      .addColumn('event_id', 'integer', (c) =>
        c.notNull().references('cal_event.id').onDelete('cascade'),
      )
      .addColumn('term_id', 'integer', (c) =>
        c.notNull().references('cal_term.id').onDelete('cascade'),
      )
      .addPrimaryKeyConstraint('cal_event_term_pk', ['event_id', 'term_id'])
      .execute()
    await sql`create index cal_event_term_rev_idx on cal_event_term (term_id, event_id)`.execute(db)
  },
  async down(db: AnyDb) {
    for (const table of [
      'cal_event_term',
      'cal_event_organizer',
      'cal_event',
      'cal_term',
      'cal_organizer',
      'cal_venue',
    ]) {
      await db.schema.dropTable(table).execute()
    }
  },
}
