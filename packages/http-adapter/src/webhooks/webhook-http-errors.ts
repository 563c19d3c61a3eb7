import { WebhookError } from '@kcore/webhooks'
import { invalidParams } from '../cal/cal-error.js'
import { HttpError } from '../http-error.js'

/** How one API words the two webhook failures a caller causes. */
export interface WebhookHttpErrors {
  /** 400 naming the field at fault. */
  invalidField(field: string, message: string): HttpError
  /** 404 for an unknown subscription id. */
  notFound(id: string, message: string): HttpError
}

/** The calendar's: WordPress' `rest_invalid_param` with `data.params`, and a `*-not-found`. */
export const calWebhookErrors: WebhookHttpErrors = {
  invalidField: (field, message) => invalidParams({ [field]: message }),
  notFound: (_, message) => new HttpError(404, 'webhook-not-found', message),
}

/** The k-core API's: `invalid_parameter` with `details`, and `webhook_not_found`. */
export const kcoreWebhookErrors: WebhookHttpErrors = {
  invalidField: (field, message) =>
    new HttpError(400, 'invalid_parameter', message, { details: [{ path: field, message }] }),
  notFound: (_, message) => new HttpError(404, 'webhook_not_found', message),
}

/**
 * The HTTP error of a {@link WebhookError} a caller caused, else `undefined` (anything else is
 * the core's to answer: a 503 for a database that is down, a 500 that leaks nothing).
 */
export function webhookErrorToHttp(
  error: unknown,
  errors: WebhookHttpErrors,
  id = '',
): HttpError | undefined {
  if (!(error instanceof WebhookError)) return undefined
  switch (error.code) {
    case 'invalid_input':
    case 'too_many_subscriptions':
      return errors.invalidField(error.field ?? 'body', error.message)
    case 'not_found':
      return errors.notFound(id, error.message)
    default:
      return undefined
  }
}
