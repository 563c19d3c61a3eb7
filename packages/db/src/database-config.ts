/**
 * Where the data lives. `url`: a PostgreSQL connection string (postgres.js). Otherwise the
 * embedded PGlite: persisted in `dataDir`, or in memory when `dataDir` is omitted.
 */
export type DatabaseConfig =
  | { url: string; maxConnections?: number /** Default 10 000. */; connectTimeoutMs?: number }
  | { dataDir?: string; url?: undefined }
