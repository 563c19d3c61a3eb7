import type { Database } from '@kcore/db'
import { createCalStore } from '../create-cal-store.js'

/**
 * Migrates a fresh database for the calendar store: the function to give `testDatabases()`'s
 * `open`, which hands a database it migrated once out again instead of migrating each one.
 */
export const migrateCal = (database: Database): Promise<void> => createCalStore(database).migrate()
