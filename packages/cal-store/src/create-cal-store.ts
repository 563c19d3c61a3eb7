import { type Database, revisionReads } from '@kcore/db'
import { sql } from 'kysely'
import type { CalStore } from './cal-store.js'
import type { ListModelOptions } from './event-list-model.js'
import { createEventRepository } from './event-repository.js'
import type { ListCacheOptions } from './list-cache.js'
import { migrateCalStore } from './migrate.js'
import { createOrganizerRepository } from './organizer-repository.js'
import { queryRevision, REVISION_CHANNEL } from './revision.js'
import type { CalSchema } from './schema.js'
import type { CalDb, StoreContext } from './store-context.js'
import { createTermRepository } from './term-repository.js'
import { createVenueRepository } from './venue-repository.js'

/** Options of {@link createCalStore}. */
export interface CalStoreOptions {
  /** Clock for `created`/`modified` stamps; default `() => new Date()`. */
  now?: () => Date
  /**
   * Event list pages kept per data revision (see {@link ListCacheOptions}); `false` turns the
   * cache off. Any committed write, from any process or script, makes the next list read anew.
   */
  listCache?: ListCacheOptions | false
  /**
   * Every event's list columns in memory (see {@link ListModelOptions}), kept at the data
   * revision through the change log, so lists filter and page without scanning the table;
   * `false` lists by SQL alone. Loaded by the first list.
   */
  listModel?: ListModelOptions | false
}

/**
 * Wraps an open database into a {@link CalStore}. Call `migrate()` once before use. The same
 * code runs on PostgreSQL and PGlite.
 */
export function createCalStore(database: Database, options: CalStoreOptions = {}): CalStore {
  const db: CalDb = database.db.withTables<CalSchema>()
  const ctx: StoreContext = {
    db,
    now: options.now ?? (() => new Date()),
    revision: revisionReads(database, REVISION_CHANNEL, () => queryRevision(db)),
  }
  return {
    dialect: database.dialect,
    ping: () => database.ping(),
    tryWithLock: (name, fn) => database.tryWithLock(name, fn),
    migrate: () => migrateCalStore(db),
    async isEmpty() {
      const { rows } = await sql<{ any: boolean }>`select (
          exists (select 1 from cal_event) or exists (select 1 from cal_venue)
          or exists (select 1 from cal_organizer) or exists (select 1 from cal_term)
        ) as any`.execute(db)
      return !rows[0]?.any
    },
    revision: async () => String(await ctx.revision()),
    events: createEventRepository(ctx, options.listCache ?? {}, options.listModel ?? {}),
    venues: createVenueRepository(ctx),
    organizers: createOrganizerRepository(ctx),
    categories: createTermRepository(ctx, 'cal_event_category'),
    tags: createTermRepository(ctx, 'cal_event_tag'),
  }
}
