import {
  MAX_DELIVERIES_LIMIT,
  MAX_URL_LENGTH,
  type WebhookApi,
  type WebhookSubscriptions,
} from '@kcore/webhooks'
import { z } from 'zod'
import { jsonResponse } from '../json-response.js'
import { type Route, route } from '../route.js'
import { type WebhookHttpErrors, webhookErrorToHttp } from './webhook-http-errors.js'

export interface WebhookRoutesOptions {
  api: WebhookApi
  /** `webhookSubscriptions(database, {events, allowPrivate})` of `@kcore/webhooks`. */
  subscriptions: WebhookSubscriptions
  /**
   * Throws the API's 401 unless the caller may manage this API's webhooks (a calendar token; the
   * k-core admin token). Runs before any input is read.
   */
  authorize(request: Request): void
  /** The API's wording of a bad field and an unknown id (`calWebhookErrors`, `kcoreWebhookErrors`). */
  errors: WebhookHttpErrors
}

const subscriptionSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  created_utc: z.string().describe('YYYY-MM-DD HH:MM:SS, UTC'),
})

const newSubscriptionSchema = subscriptionSchema.extend({
  secret: z
    .string()
    .describe('`whsec_…`: verifies the `webhook-signature` of every message. Shown this once.'),
})

const deliverySchema = z.object({
  message_id: z.string().describe('The `webhook-id` header of the message'),
  type: z.string(),
  attempted_utc: z.string(),
  status: z.number().int().nullable().describe("The receiver's HTTP status; null if none came"),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  message_status: z.enum(['pending', 'delivered', 'failed']),
})

const subscribeBody = z.object({
  url: z.string().max(MAX_URL_LENGTH),
  events: z.array(z.string().max(100)).min(1).max(100),
})
// PostgreSQL text cannot hold U+0000: refused here, a 400 rather than a failed lookup.
const idParams = z.object({
  id: z
    .string()
    .min(1)
    .max(100)
    .refine((id) => !id.includes('\u0000'), 'must not contain U+0000'),
})
const deliveriesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_DELIVERIES_LIMIT).optional(),
})

/**
 * `POST/GET /webhooks`, `DELETE /webhooks/:id`, `GET /webhooks/:id/deliveries` of one API, to
 * add to its `routes`. Types and sizes are checked by the schemas (the API's own 400); what
 * only the subscriptions know (an http(s) URL to a public address, known event types, the cap)
 * comes back as `errors.invalidField`.
 */
export function webhookRoutes(options: WebhookRoutesOptions): Route[] {
  const { api, subscriptions, authorize, errors } = options
  /** A handler whose caller-made failures become the API's HTTP errors. */
  const mapped = async (id: string, run: () => Promise<Response>) => {
    try {
      return await run()
    } catch (error) {
      throw webhookErrorToHttp(error, errors, id) ?? error
    }
  }
  const unknownId = { description: 'No such subscription' }
  const denied = { description: 'Missing or wrong token' }

  return [
    route({
      method: 'POST',
      path: '/webhooks',
      summary: 'Subscribe a URL to events',
      description:
        'Messages follow the Standard Webhooks specification: headers `webhook-id`, ' +
        '`webhook-timestamp`, `webhook-signature`; body `{type, timestamp, data}`. The secret ' +
        'that verifies them is in this answer only.',
      body: subscribeBody,
      authorize,
      responses: {
        201: { description: 'Subscribed', schema: newSubscriptionSchema },
        400: { description: 'Bad URL (not http(s), private address), unknown event, or too many' },
        401: denied,
      },
      handle: ({ body }) =>
        mapped('', async () => jsonResponse(await subscriptions.subscribe(api, body), 201)),
    }),
    route({
      method: 'GET',
      path: '/webhooks',
      summary: 'List the subscriptions (without secrets)',
      authorize,
      responses: {
        200: { description: 'Oldest first', schema: z.array(subscriptionSchema) },
        401: denied,
      },
      handle: () => mapped('', async () => jsonResponse(await subscriptions.list(api))),
    }),
    route({
      method: 'DELETE',
      path: '/webhooks/:id',
      summary: 'End a subscription (its undelivered messages are dropped)',
      params: idParams,
      authorize,
      responses: { 204: { description: 'Ended' }, 401: denied, 404: unknownId },
      handle: ({ params }) =>
        mapped(params.id, async () => {
          await subscriptions.remove(api, params.id)
          return new Response(null, { status: 204 })
        }),
    }),
    route({
      method: 'GET',
      path: '/webhooks/:id/deliveries',
      summary: 'The latest delivery attempts of a subscription, newest first',
      params: idParams,
      query: deliveriesQuery,
      authorize,
      responses: {
        200: { description: 'Attempts', schema: z.array(deliverySchema) },
        400: { description: 'Bad limit' },
        401: denied,
        404: unknownId,
      },
      handle: ({ params, query }) =>
        mapped(params.id, async () =>
          jsonResponse(await subscriptions.deliveries(api, params.id, { limit: query.limit })),
        ),
    }),
  ]
}
