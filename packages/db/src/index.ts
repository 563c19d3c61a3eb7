export { lockAllUntilCommit, lockUntilCommit } from './advisory-lock.js'
export type { ReleaseDataDir } from './data-dir-lock.js'
export { DataDirLockedError, lockDataDir } from './data-dir-lock.js'
export type { Database, DialectName, LockResult, NoTables } from './database.js'
export type { DatabaseConfig, DatabaseLogger } from './database-config.js'
export { DatabaseConnectError, DEFAULT_CONNECT_TIMEOUT_MS } from './database-connect-error.js'
export {
  DatabaseOpenError,
  DatabaseUnavailableError,
  errorText,
  isDatabaseUnavailable,
  isOutOfSpace,
  StorageFullError,
} from './database-errors.js'
export { type Migrations, migrateToLatest } from './migrate.js'
export { openDatabase } from './open-database.js'
export { openPgliteDatabase } from './open-pglite-database.js'
export type { PgliteOptions } from './pglite-database.js'
export { openPostgresDatabase, type PostgresOptions } from './postgres-database.js'
export { DEFAULT_PREPARED_STATEMENTS } from './prepared-statements.js'
export {
  createRevisionMemo,
  type RevisionMemo,
  type RevisionMemoOptions,
  type Sized,
} from './revision-memo.js'
export {
  dropNotifyOnChange,
  notifyOnChange,
  notifyPayload,
  revisionReads,
} from './revision-reads.js'
export { sharedReads } from './shared-reads.js'
