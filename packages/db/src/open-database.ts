import type { Database } from './database.js'
import type { DatabaseConfig } from './database-config.js'
import { checkConnection, DEFAULT_CONNECT_TIMEOUT_MS } from './database-connect-error.js'
import { openPgliteDatabase } from './open-pglite-database.js'
import { openPostgresDatabase } from './postgres-database.js'

/**
 * Opens PostgreSQL when `config.url` is set (and connects once, so an unreachable server fails
 * here within `connectTimeoutMs`), else the embedded PGlite (locking its `dataDir`).
 *
 * @throws {DatabaseConnectError} when PostgreSQL cannot be reached.
 * @throws {DataDirLockedError} when another process owns the PGlite directory.
 * @throws {DatabaseOpenError} when PGlite cannot open its directory (say, a full disk).
 */
export async function openDatabase(config: DatabaseConfig = {}): Promise<Database> {
  if (config.url) {
    const timeout = config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
    const database = openPostgresDatabase(config.url, {
      maxConnections: config.maxConnections,
      connectTimeoutMs: timeout,
      preparedStatements: config.preparedStatements,
    })
    await checkConnection(database, config.url, timeout)
    return database
  }
  return openPgliteDatabase(config.dataDir || undefined, { log: config.log })
}
