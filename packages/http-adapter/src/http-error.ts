/** One validation problem, as listed in an error envelope's `details`. */
export interface ErrorDetail {
  path: string
  message: string
}

/** Options of an {@link HttpError} beyond status, code and message. */
export interface HttpErrorOptions {
  details?: ErrorDetail[]
  /** Extra members of the WordPress-style `data` object (calendar API), e.g. `params`. */
  data?: Record<string, unknown>
  headers?: Record<string, string>
}

/**
 * An error that becomes a JSON error envelope (see `shared/spec/common.md`). Throw it from a
 * route handler; anything else thrown becomes a 500 that leaks nothing.
 */
export class HttpError extends Error {
  override readonly name = 'HttpError'
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly options: HttpErrorOptions = {},
  ) {
    super(message)
  }
}
