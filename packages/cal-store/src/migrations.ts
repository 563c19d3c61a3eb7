import type { Migration, MigrationProvider } from 'kysely'
import { initial } from './migrations/0001-initial.js'
import { termCounts } from './migrations/0002-term-counts.js'
import { plannedTriggers } from './migrations/0003-planned-triggers.js'
import { slugCollation } from './migrations/0004-slug-collation.js'
import { searchText } from './migrations/0005-event-search-text.js'
import { listIndexes } from './migrations/0006-event-list-indexes.js'
import { revision } from './migrations/0007-revision.js'
import { listSync } from './migrations/0010-list-sync.js'
import { eventChangeLog } from './migrations/0011-event-change-log.js'
import { revisionNotify } from './migrations/0012-revision-notify.js'
import { changesFeed } from './migrations/0013-changes-feed.js'
import { recurrence } from './migrations/0014-recurrence.js'
import { oneChangeLog } from './migrations/0015-one-change-log.js'
import { movedPublicIds } from './migrations/0016-moved-public-ids.js'
import { revisionStamps } from './migrations/0017-revision-stamps.js'

/** Kysely's bookkeeping tables for this package (apart from every other package's). */
export const MIGRATION_TABLE = 'cal_migration'
export const MIGRATION_LOCK_TABLE = 'cal_migration_lock'

/**
 * The migrations of `@cal/store`, in order, one per file under `migrations/` (as Kysely lays
 * them out). The ids are what databases have recorded: they never change once released (there
 * is no 0008 or 0009).
 */
export const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_term_counts': termCounts,
  '0003_planned_triggers': plannedTriggers,
  '0004_slug_collation': slugCollation,
  '0005_event_search_text': searchText,
  '0006_event_list_indexes': listIndexes,
  '0007_revision': revision,
  '0010_list_sync': listSync,
  '0011_event_change_log': eventChangeLog,
  '0012_revision_notify': revisionNotify,
  '0013_changes_feed': changesFeed,
  '0014_recurrence': recurrence,
  '0015_one_change_log': oneChangeLog,
  '0016_moved_public_ids': movedPublicIds,
  '0017_revision_stamps': revisionStamps,
}

/** A static, in-code migration provider (no file system look-ups, works in every runtime). */
export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations
  },
}
