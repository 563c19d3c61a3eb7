import type { Database } from '@kcore/db'
import { createKcoreStore } from '../kcore-store.js'
import type { KcoreStore } from '../kcore-store-interface.js'

/** A store with its database beside it: tests read and close it (the store API does not). */
export type TestStore = KcoreStore & { readonly database: Database }

/**
 * Migrates a fresh database for the k-core store: the function to give `testDatabases()`'s
 * `open`, which hands a database it migrated once out again instead of migrating each one.
 */
export const migrateKcore = (database: Database): Promise<void> =>
  createKcoreStore(database).migrate()

/** A migrated store on a fresh database of a `testDatabases()` entry. */
export async function openStore(
  open: (migrate?: typeof migrateKcore) => Promise<Database>,
): Promise<TestStore> {
  const database = await open(migrateKcore)
  const store = Object.assign(createKcoreStore(database), { database })
  await store.migrate()
  return store
}
