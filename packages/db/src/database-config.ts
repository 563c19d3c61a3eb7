import type { PostgresOptions } from './postgres-database.js'

/**
 * Where the data lives. `url`: a PostgreSQL connection string (postgres.js). Otherwise the
 * embedded PGlite: persisted in `dataDir`, or in memory when `dataDir` is omitted; with `url`,
 * the pool's {@link PostgresOptions}. `log` receives what the database layer has to report on
 * its own (the engine's full error text when the disk fills up or the embedded engine fails and
 * restarts): the service's logger fits.
 */
export type DatabaseConfig = (
  | ({ url: string } & PostgresOptions)
  | { dataDir?: string; url?: undefined }
) & { log?: DatabaseLogger }

/** Where `@kcore/db` reports events nobody awaits (structurally the service's `Logger`). */
export interface DatabaseLogger {
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
}
