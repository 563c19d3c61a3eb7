/**
 * `@kcore/store`: Kysely migrations and a typed repository for k-core snapshots and per-AS
 * shell indices, on PostgreSQL or PGlite through one code path.
 *
 * @packageDocumentation
 */

export { asNameKey } from './as-registry/as-name-key.js'
export {
  type ImportAsRegistryOptions,
  importAsRegistry,
} from './as-registry/import-as-registry.js'
export { RegistryFileError } from './as-registry/registry-csv.js'
export type { AsRegistryEntry } from './as-registry/registry-entries.js'
export {
  type AsMatch,
  MAX_SEARCH_LENGTH,
  MAX_SEARCH_LIMIT,
} from './as-registry/search-registry.js'
export {
  type AsRegistryInfo,
  AsRegistryOutdatedError,
  type NewAsRegistry,
} from './as-registry/stored-registry.js'
export { CALENDAR_DATE_PATTERN, isCalendarDate } from './calendar-date.js'
export { parseCronSchedule } from './cron-schedule.js'
export {
  AsnNotFoundError,
  InvalidQueryError,
  KcoreConfigError,
  KcoreStoreError,
  SnapshotLinksNotStoredError,
  SnapshotNotFoundError,
} from './errors.js'
export type { IngestFileResult } from './ingest-file.js'
export { ingestFile } from './ingest-file.js'
export { createKcoreStore } from './kcore-store.js'
export type { KcoreReader, KcoreStore, KcoreStoreOptions } from './kcore-store-interface.js'
export type {
  AsAddressSpace,
  AsnOverview,
  AsnVersionOverview,
  CoreAnswer,
  CoreMover,
  CoreSelector,
  DateRange,
  Distribution,
  Movers,
  MoversOptions,
  NewProvenance,
  NewSnapshot,
  RankMover,
  ShellList,
  ShellListOptions,
  ShellPage,
  ShellRow,
  SnapshotGraph,
  SnapshotGraphEntry,
  SnapshotInfo,
  TrendPoint,
  TrendView,
  VersionSummary,
} from './kcore-store-types.js'
export {
  DATA_BREAKS,
  DATA_BREAKS_VERSION,
  type DataBreak,
  dataBreaks,
} from './methodology-breaks.js'
export { KcoreMigrationError } from './migrate.js'
export { normalizedShell } from './normalized-shell.js'
export { MAX_RESEARCH_LIMIT } from './query-options.js'
export { RefreshInProgressError } from './refresh-in-progress-error.js'
export type { KcoreSchema } from './schema.js'
export type { Neighbours, PlausibilityOptions } from './snapshot-plausibility.js'
export {
  assertStorableSnapshot,
  ImplausibleSnapshotError,
  MIN_NEIGHBOUR_SHARE,
} from './snapshot-plausibility.js'
export {
  KCORE_WEBHOOK_EVENTS,
  type KcoreWebhookEvent,
  type SnapshotWebhookData,
} from './snapshot-webhook.js'
export type { SyncOptions, SyncProgress, VersionSyncResult } from './sync-from-provider.js'
export { REFRESH_LOCK, syncFromProvider } from './sync-from-provider.js'
export {
  createSyncRunner,
  DEFAULT_REFRESH_DEADLINE_MS,
  type SyncResults,
  type SyncRunner,
} from './sync-runner.js'
export {
  createScheduler,
  DEFAULT_SCHEDULER,
  type Scheduler,
  type SchedulerDeps,
  type SchedulerOptions,
  type SchedulerStatus,
} from './update-scheduler.js'
