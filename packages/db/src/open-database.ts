import type { Database } from './database.js'
import type { DatabaseConfig } from './database-config.js'
import { openPgliteDatabase } from './pglite-database.js'
import { openPostgresDatabase } from './postgres-database.js'

/** Opens PostgreSQL when `config.url` is set, else the embedded PGlite. */
export async function openDatabase(config: DatabaseConfig = {}): Promise<Database> {
  if (config.url)
    return openPostgresDatabase(
      config.url,
      'maxConnections' in config ? config.maxConnections : undefined,
    )
  return openPgliteDatabase('dataDir' in config ? config.dataDir : undefined)
}
