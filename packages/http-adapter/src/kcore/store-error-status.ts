import {
  AsnNotFoundError,
  InvalidQueryError,
  KcoreStoreError,
  RefreshInProgressError,
  SnapshotLinksNotStoredError,
  SnapshotNotFoundError,
} from '@kcore/store'
import { HttpError } from '../http-error.js'

/** HTTP status of each typed `@kcore/store` error: the one place they meet HTTP. */
const STATUS: [new (...args: never[]) => KcoreStoreError, number, string][] = [
  [SnapshotNotFoundError, 404, 'snapshot_not_found'],
  [AsnNotFoundError, 404, 'asn_not_found'],
  [InvalidQueryError, 400, 'invalid_parameter'],
  [RefreshInProgressError, 409, 'refresh_in_progress'],
  [SnapshotLinksNotStoredError, 409, 'snapshot_links_not_stored'],
]

/**
 * The {@link HttpError} of a typed store error, else `undefined` (a bug, a database failure:
 * the core makes it a 503 or an opaque 500). The k-core API's `mapError`.
 */
export function storeErrorToHttp(error: unknown): HttpError | undefined {
  if (!(error instanceof KcoreStoreError)) return undefined
  for (const [type, status, code] of STATUS)
    if (error instanceof type) return new HttpError(status, code, error.message)
  return undefined
}
