import { isDatabaseUnavailable } from '@kcore/db'
import { HttpError } from './http-error.js'
import { jsonResponse } from './json-response.js'

/**
 * `plain`: the common envelope `{error, message, status, details?}`.
 * `wordpress`: the same keys plus `code` and `data: {status, ...}` for WordPress-style clients.
 */
export type ErrorStyle = 'plain' | 'wordpress'

/** How a failure becomes an answer: the API's own errors, then the core's. */
export interface ErrorMapping {
  /**
   * The {@link HttpError} of an error the API's store throws on purpose, else `undefined`;
   * `request` (when known) lets an API name fields by the route that failed.
   */
  mapError?(error: unknown, request?: Request): HttpError | undefined
  /** Receives every error that became a 5xx (with its detail), for the host's logs. */
  onError?(error: unknown): void
}

/**
 * The {@link HttpError} of any failure, the one way every error becomes HTTP: an `HttpError` as
 * thrown, the API's typed store errors by its `mapError`, a database that cannot serve (down,
 * disk or memory full) a 503, anything else an opaque 500. Neither of the last two says more
 * in the body (no SQL, file path or driver text); the error goes to `onError` instead.
 */
export function httpErrorOf(
  error: unknown,
  mapping: ErrorMapping = {},
  request?: Request,
): HttpError {
  const known = error instanceof HttpError ? error : mapping.mapError?.(error, request)
  if (known && known.status < 500) return known
  mapping.onError?.(error)
  if (known) return known
  if (isDatabaseUnavailable(error)) {
    return new HttpError(
      503,
      'service_unavailable',
      'The database cannot serve this request now (unavailable or out of space); try again later',
      { headers: { 'retry-after': '30' } },
    )
  }
  return new HttpError(500, 'internal_error', 'Internal server error')
}

/** Renders any failure as its envelope ({@link httpErrorOf}). */
export function errorResponse(
  error: unknown,
  style: ErrorStyle,
  mapping: ErrorMapping = {},
  request?: Request,
): Response {
  const err = httpErrorOf(error, mapping, request)
  const { details, data, headers } = err.options
  const body: Record<string, unknown> = {
    error: err.code,
    message: err.message,
    status: err.status,
  }
  if (details?.length) body.details = details
  if (style === 'wordpress') {
    body.code = err.code
    body.data = { status: err.status, ...data }
  }
  return jsonResponse(body, err.status, headers)
}
