import { isValidTimeZone, rejectNul } from '@cal/store'
import { createRevisionMemo, type RevisionMemo } from '@kcore/db'
import type { Api, Route } from '../route.js'
import { calWebhookErrors, webhookRoutes } from '../webhooks/index.js'
import { CAL_BASE, CAL_EXPOSED_HEADERS, type CalApiOptions } from './cal-api-options.js'
import { type CalContext, requireToken } from './cal-context.js'
import { changesRoutes } from './changes-routes.js'
import { namespaceRoutes } from './discovery-routes.js'
import { eventRoutes } from './event-routes.js'
import { calInvalidInput } from './invalid-input.js'
import { organizerRoutes } from './organizer-routes.js'
import { calStoreError, nameFieldOf } from './store-error.js'
import { termRoutes } from './term-routes.js'
import { createTokenAuth } from './token-auth.js'
import { venueRoutes } from './venue-routes.js'

/** The API's memo of rendered answers; with `false` every answer is computed. */
function answerMemo(maxBytes: number | false = 32 * 1024 * 1024): RevisionMemo {
  if (maxBytes === false) return { get: (_revision, _key, compute) => compute() }
  return createRevisionMemo({ maxBytes })
}

/**
 * The calendar events API under `/cal/events/v1` (The Events Calendar REST API v1 shapes,
 * WordPress-style errors): events, venues, organizers, categories and tags, the namespace
 * index and the OpenAPI document. Throws when `timezone` is not a valid zone.
 */
export function createCalApi(options: CalApiOptions): Api {
  const timezone = options.timezone ?? 'UTC'
  if (!isValidTimeZone(timezone)) {
    throw new Error(
      `Invalid calendar time zone ${JSON.stringify(timezone)}: use an IANA name or UTC±H[:MM]`,
    )
  }
  const ctx: CalContext = {
    store: options.store,
    auth: createTokenAuth(options.tokens),
    timezone,
    now: options.now ?? (() => new Date()),
    memo: answerMemo(options.memoBytes),
  }
  const api: Api = {
    base: CAL_BASE,
    title: 'Calendar events API',
    version: '1.0.0',
    errorStyle: 'wordpress',
    exposeHeaders: CAL_EXPOSED_HEADERS,
    invalidInput: calInvalidInput,
    mapError: (error, request) => calStoreError(error, nameFieldOf(request)),
    reader: () => options.store.reader(),
    routes: [],
  }
  const routes: Route[] = [
    ...namespaceRoutes(() => api),
    ...eventRoutes(ctx),
    ...venueRoutes(ctx),
    ...organizerRoutes(ctx),
    ...termRoutes(ctx, 'categories'),
    ...termRoutes(ctx, 'tags'),
    ...changesRoutes(ctx),
    ...(options.webhooks
      ? webhookRoutes({
          api: 'cal',
          subscriptions: options.webhooks,
          authorize: (request) => requireToken(ctx, request),
          errors: calWebhookErrors,
        })
      : []),
  ]
  api.routes = routes.map((r) => ({
    ...r,
    handle(input) {
      // PostgreSQL text cannot hold U+0000: the store's rule, over every part of the input
      // (some never reach the store), so it is a 400 naming the field, never a 500.
      for (const part of [input.params, input.query, input.body]) rejectNul(part)
      return r.handle(input)
    },
  }))
  return api
}
