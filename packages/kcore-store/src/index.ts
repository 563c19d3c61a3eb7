/**
 * `@kcore/store`: Kysely migrations and a typed repository for k-core snapshots and per-AS
 * shell indices, on PostgreSQL or PGlite through one code path.
 *
 * @packageDocumentation
 */

export type {
  DateRange,
  KcoreStore,
  NewSnapshot,
  SnapshotInfo,
  TrendPoint,
  VersionSummary,
} from './kcore-store.js'
export { createKcoreStore } from './kcore-store.js'
export { KcoreMigrationError } from './migrate.js'
export type { KcoreSchema } from './schema.js'
