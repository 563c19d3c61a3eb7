import {
  AsnNotFoundError,
  InvalidQueryError,
  KcoreStoreError,
  RefreshInProgressError,
  SnapshotNotFoundError,
} from '@kcore/store'
import { HttpError } from '../http-error.js'

/** HTTP status of each typed `@kcore/store` error: the one place they meet HTTP. */
const STATUS: [new (...args: never[]) => KcoreStoreError, number, string][] = [
  [SnapshotNotFoundError, 404, 'snapshot_not_found'],
  [AsnNotFoundError, 404, 'asn_not_found'],
  [InvalidQueryError, 400, 'invalid_parameter'],
  [RefreshInProgressError, 409, 'refresh_in_progress'],
]

/**
 * The {@link HttpError} of a typed store error; anything else (a bug, a database failure) is
 * returned as is, so it stays an opaque 500.
 */
export function storeErrorToHttp(error: unknown): unknown {
  if (!(error instanceof KcoreStoreError)) return error
  for (const [type, status, code] of STATUS)
    if (error instanceof type) return new HttpError(status, code, error.message)
  return error
}

/** Runs a handler, turning typed store errors into their HTTP errors. */
export async function mapStoreErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    throw storeErrorToHttp(error)
  }
}
