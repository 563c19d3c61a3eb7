import { existsSync } from 'node:fs'
import { join } from 'node:path'

/** A bad argument, flag or input path: one line on stderr, exit code 2. */
export class UsageError extends Error {}

/**
 * Read-only commands open existing data only: an embedded database directory that holds no
 * cluster is a mistyped path, not an invitation to create a database there.
 */
export function assertDatabaseExists(config: { databaseUrl?: string; dataDir: string }): void {
  if (config.databaseUrl) return
  if (!clusterExists(config.dataDir))
    throw new UsageError(
      `no kcore database in ${config.dataDir} (give --data-dir or --database-url of one that ` +
        'exists; `kcore ingest` or `kcore serve` creates it)',
    )
}

/** True when `dataDir` holds an embedded database (PGlite writes `PG_VERSION` creating one). */
export const clusterExists = (dataDir: string) => existsSync(join(dataDir, 'PG_VERSION'))
