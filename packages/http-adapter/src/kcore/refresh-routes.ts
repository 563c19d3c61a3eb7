import type { IpVersion } from '@kcore/engine'
import { jsonResponse } from '../json-response.js'
import { type Route, route } from '../route.js'
import type { KcoreContext } from './kcore-context.js'
import { ignoredBody, refreshBody } from './request-schemas.js'
import {
  errorSchema,
  refreshSchema,
  schedulerStatusSchema,
  updateSchema,
} from './response-schemas.js'
import { mapResults, toRefreshResult, toUpdateResult } from './sync-result-mapping.js'

const BOTH: IpVersion[] = ['ipv4', 'ipv6']

const authResponses = {
  401: {
    description: 'Admin token missing or wrong (only when one is configured)',
    schema: errorSchema,
  },
  409: { description: 'A refresh or update check is already running', schema: errorSchema },
}

/**
 * The refresh and scheduler routes; the two that change data are the admin's (`authorize`
 * checks the admin token, when one is configured, before the body is read).
 */
export function refreshRoutes(ctx: KcoreContext): Route[] {
  return [
    route({
      method: 'POST',
      path: '/refresh',
      summary: 'Ingest every snapshot the provider offers that is not stored yet',
      description:
        'Body `{ip_versions}` optional (an empty body means both). A provider failure is still ' +
        'HTTP 200 with `processed: false` and an `error`.',
      body: refreshBody,
      authorize: (request) => ctx.auth.assert(request),
      responses: {
        200: { description: 'Per IP version asked', schema: refreshSchema },
        400: { description: 'Bad body', schema: errorSchema },
        ...authResponses,
      },
      handle: async ({ body }) => {
        const versions = body?.ip_versions ? [...new Set(body.ip_versions)] : BOTH
        const results = await ctx.runner.run(versions)
        return jsonResponse(mapResults(results, versions, toRefreshResult))
      },
    }),
    route({
      method: 'GET',
      path: '/scheduler/status',
      summary: 'Scheduler state and next run',
      responses: { 200: { description: 'Status', schema: schedulerStatusSchema } },
      handle: () => jsonResponse(ctx.scheduler.status()),
    }),
    route({
      method: 'POST',
      path: '/scheduler/update',
      summary: 'Run an update check of both IP versions now',
      description:
        'No body needed (an empty body with a JSON content type is fine; any body is ignored).',
      body: ignoredBody,
      authorize: (request) => ctx.auth.assert(request),
      responses: {
        200: { description: 'The check ran', schema: updateSchema },
        ...authResponses,
      },
      handle: async () => {
        const results = mapResults(await ctx.runner.run(BOTH), BOTH, toUpdateResult)
        return jsonResponse({
          triggered: true,
          results,
          timestamp: ctx.now().toISOString(),
          success: BOTH.every((v) => results[v]?.success === true),
        })
      },
    }),
  ]
}
