/**
 * `@kcore/store`: Kysely migrations and a typed repository for k-core snapshots and per-AS
 * shell indices, on PostgreSQL or PGlite through one code path.
 *
 * @packageDocumentation
 */

export type { IngestFileResult } from './ingest-file.js'
export { ingestFile } from './ingest-file.js'
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
export { RefreshInProgressError } from './refresh-in-progress-error.js'
export type { KcoreSchema } from './schema.js'
export type { Neighbours, PlausibilityOptions } from './snapshot-plausibility.js'
export {
  assertStorableSnapshot,
  ImplausibleSnapshotError,
  MIN_NEIGHBOUR_SHARE,
} from './snapshot-plausibility.js'
export type { SyncOptions, SyncProgress, VersionSyncResult } from './sync-from-provider.js'
export { REFRESH_LOCK, syncFromProvider } from './sync-from-provider.js'
