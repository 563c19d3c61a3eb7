import type { Database } from '@kcore/db'
import { createKcoreStore } from '../kcore-store.js'
import type { KcoreStore } from '../kcore-store-interface.js'

/** A store with its database beside it: tests read and close it (the store API does not). */
export type TestStore = KcoreStore & { readonly database: Database }

/** A migrated store on a fresh database of a `testDatabases()` entry. */
export async function openStore(open: () => Promise<Database>): Promise<TestStore> {
  const database = await open()
  const store = Object.assign(createKcoreStore(database), { database })
  await store.migrate()
  return store
}
