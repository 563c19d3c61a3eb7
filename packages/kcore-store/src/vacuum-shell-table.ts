import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { type KcoreSchema, shellTable } from './schema.js'

/**
 * `VACUUM (ANALYZE)` of one version's shell table, run after every ingest (once at the end of
 * a sync run), outside its
 * transaction (VACUUM cannot run inside one). It marks the new pages all-visible, so a trend
 * stays an index-only scan with no heap fetch, and refreshes the planner's statistics, without
 * waiting for autovacuum (late after a bulk insert on PostgreSQL, absent on PGlite). After the
 * first run only pages changed since are visited.
 */
export async function vacuumShellTable(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
): Promise<void> {
  await sql`vacuum (analyze) ${sql.table(shellTable(ipVersion))}`.execute(db)
}
