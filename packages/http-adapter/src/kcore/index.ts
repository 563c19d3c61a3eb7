/**
 * The k-core trends API (`/api`): {@link createKcoreApi} and its options.
 * @module
 */

export { parseCronSchedule } from './cron-schedule.js'
export { createKcoreApi } from './kcore-api.js'
export {
  DEFAULT_SCHEDULER,
  type KcoreApiOptions,
  type KcoreSchedulerOptions,
  type ResponseCacheSettings,
} from './kcore-api-options.js'
export { KcoreConfigError } from './kcore-config-error.js'
export { MAX_ASN, MAX_TRENDS_ASNS } from './request-schemas.js'
export type { SchedulerStatus } from './scheduler.js'
export { SHELL_CONTENT_TYPES, type ShellFormat, shellListStream } from './shell-stream.js'
export type { RefreshVersionResult, UpdateVersionResult } from './sync-result-mapping.js'
