import type { PostgresOptions } from './postgres-database.js'

/**
 * Where the data lives: PostgreSQL when `url` (a postgres.js connection string) is set and not
 * empty, with the pool's {@link PostgresOptions}; otherwise the embedded PGlite, persisted in
 * `dataDir`, or in memory when `dataDir` is unset or empty. The URL wins when both are given, so
 * a host passes its environment on as it is:
 * `openDatabase({ url: process.env.DATABASE_URL, dataDir: process.env.KCORE_DATA_DIR })`.
 * `log` receives what the database layer has to report on its own (the engine's full error text
 * when the disk fills up or the embedded engine fails and restarts): the service's logger fits.
 */
export interface DatabaseConfig extends PostgresOptions {
  url?: string | undefined
  dataDir?: string | undefined
  log?: DatabaseLogger | undefined
}

/** Where `@kcore/db` reports events nobody awaits (structurally the service's `Logger`). */
export interface DatabaseLogger {
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
}
