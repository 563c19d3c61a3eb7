import { HttpError } from './http-error.js'
import { jsonResponse } from './json-response.js'

/**
 * `plain`: the common envelope `{error, message, status, details?}`.
 * `wordpress`: the same keys plus `code` and `data: {status, ...}` for WordPress-style clients.
 */
export type ErrorStyle = 'plain' | 'wordpress'

/** How a failure becomes an answer: the API's own errors, then the core's. */
export interface ErrorMapping {
  /** The {@link HttpError} of an error the API's store throws on purpose, else `undefined`. */
  mapError?(error: unknown): HttpError | undefined
  /** Receives every error that became a 5xx (with its detail), for the host's logs. */
  onError?(error: unknown): void
}

/**
 * SQLSTATE classes and system error codes that say the database cannot serve now, whoever
 * raised them: class 53 (insufficient resources: disk full, out of memory, too many
 * connections), class 08 (connection exception), 57P01-57P03 (shutting down, cannot connect
 * now), and the same seen by the driver or PGlite as a system error.
 */
const UNAVAILABLE_SQLSTATE = /^(53|08)[0-9A-Z]{3}$|^57P0[1-3]$/
const UNAVAILABLE_SYSTEM = new Set([
  'ENOSPC',
  'EDQUOT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
])

/** Whether `error` (or an error it wraps, through `cause`) says the database cannot serve now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e !== null && typeof e === 'object' && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code
    if (
      typeof code === 'string' &&
      (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SYSTEM.has(code))
    )
      return true
    e = (e as { cause?: unknown }).cause
  }
  return false
}

/**
 * The {@link HttpError} of any failure, the one way every error becomes HTTP: an `HttpError` as
 * thrown, the API's typed store errors by its `mapError`, a database that cannot serve (down,
 * disk or memory full) a 503, anything else an opaque 500. Neither of the last two says more
 * in the body (no SQL, file path or driver text); the error goes to `onError` instead.
 */
export function httpErrorOf(error: unknown, mapping: ErrorMapping = {}): HttpError {
  const known = error instanceof HttpError ? error : mapping.mapError?.(error)
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
): Response {
  const err = httpErrorOf(error, mapping)
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
