/**
 * What went wrong, for the HTTP layer: `invalid_input` and `too_many_subscriptions` are the
 * caller's mistake (400, naming {@link WebhookError.field}), `not_found` is 404,
 * `migration_failed` is the operator's.
 */
export type WebhookErrorCode =
  | 'invalid_input'
  | 'too_many_subscriptions'
  | 'not_found'
  | 'migration_failed'

/** The one error `@kcore/webhooks` throws on purpose. */
export class WebhookError extends Error {
  override readonly name = 'WebhookError'
  constructor(
    readonly code: WebhookErrorCode,
    message: string,
    options?: ErrorOptions & { field?: string | undefined },
  ) {
    super(message, options)
    this.field = options?.field
  }
  /** The input field at fault (`url`, `events`), when there is one. */
  readonly field: string | undefined
}
