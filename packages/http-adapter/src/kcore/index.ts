/**
 * The k-core trends API (`/api`): {@link createKcoreApi} and its options.
 * @module
 */

export { createKcoreApi } from './create-kcore-api.js'
export {
  KCORE_BASE,
  type KcoreApiOptions,
} from './kcore-api-options.js'
export { MAX_ASN, MAX_TRENDS_ASNS } from './request-schemas.js'
export { SHELL_CONTENT_TYPES, type ShellFormat, shellListStream } from './shell-stream.js'
export type { RefreshVersionResult, UpdateVersionResult } from './sync-result-mapping.js'
