import type { Database } from './database.js'
import type { PgliteOptions } from './pglite-database.js'

/**
 * Opens an embedded PGlite database, persisted in `dataDir` or in memory (see
 * `pglite-database.ts`). Its driver loads on the first call only, and PGlite with its
 * WebAssembly only in the engine's worker thread, so a PostgreSQL user of `@kcore/db` never
 * loads them, and no thread that serves requests does.
 *
 * @throws {DataDirLockedError} when another live process has the directory open.
 */
export async function openPgliteDatabase(
  dataDir?: string,
  options: PgliteOptions = {},
): Promise<Database> {
  const { openPglite } = await import('./pglite-database.js')
  return openPglite(dataDir, options)
}
