import { HttpError } from './http-error.js'
import { jsonResponse } from './json-response.js'

/**
 * `plain`: the common envelope `{error, message, status, details?}`.
 * `wordpress`: the same keys plus `code` and `data: {status, ...}` for WordPress-style clients.
 */
export type ErrorStyle = 'plain' | 'wordpress'

/** Renders an error as its envelope; unknown errors become an opaque 500. */
export function errorResponse(error: unknown, style: ErrorStyle): Response {
  const err =
    error instanceof HttpError
      ? error
      : new HttpError(500, 'internal_error', 'Internal server error')
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
