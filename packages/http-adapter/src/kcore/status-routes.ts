import type { IpVersion } from '@kcore/engine'
import { dataBreaks } from '@kcore/store'
import { jsonResponse } from '../json-response.js'
import { type Route, route } from '../route.js'
import { inputKey, type KcoreContext, kcoreRoute } from './kcore-context.js'
import { snapshotsQuery } from './request-schemas.js'
import { errorSchema, healthSchema, snapshotsSchema, summarySchema } from './response-schemas.js'

/** How long the health check waits for the database before calling it unhealthy. */
export const HEALTH_TIMEOUT_MS = 5_000

const withTimeout = <T>(promise: Promise<T>, fallback: T): Promise<T> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(fallback), HEALTH_TIMEOUT_MS)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      () => {
        clearTimeout(timer)
        resolve(fallback)
      },
    )
  })

/** `GET /health`, `GET /summary`, `GET /snapshots`. */
export function statusRoutes(ctx: KcoreContext): Route[] {
  const { store } = ctx
  return [
    route({
      method: 'GET',
      path: '/health',
      summary: 'Service and database health',
      description: 'HTTP 503 with `status: "unhealthy"` when the database does not answer.',
      responses: {
        200: { description: 'Healthy', schema: healthSchema },
        503: { description: 'The database does not answer', schema: healthSchema },
      },
      handle: async () => {
        const up = await withTimeout(store.ping(), false)
        const count = up
          ? await withTimeout(
              store.reader().then((reader) => reader.snapshotCount()),
              -1,
            )
          : -1
        const healthy = up && count >= 0
        const body = {
          status: healthy ? 'healthy' : 'unhealthy',
          version: ctx.version,
          data_status: count > 0 ? 'available' : count === 0 ? 'empty' : 'unknown',
          database: {
            status: healthy ? 'healthy' : 'unhealthy',
            connection: healthy ? 'ok' : 'error',
            dialect: store.dialect,
          },
        }
        return jsonResponse(body, healthy ? 200 : 503)
      },
    }),
    kcoreRoute({
      method: 'GET',
      path: '/summary',
      summary: 'Snapshot counts, date ranges and ASN counts per IP version; known data breaks',
      description:
        '`breaks`: a versioned table of dates where CAIDA changed its method or inputs, so a ' +
        "jump in a trend there may be the data's, not the AS's (each item names its source).",
      responses: {
        200: { description: 'One key per IP version with data', schema: summarySchema },
      },
      cacheKey: inputKey('summary'),
      handle: async ({ reader }) =>
        jsonResponse({ ...(await reader.summary()), breaks: dataBreaks() }),
    }),
    kcoreRoute({
      method: 'GET',
      path: '/snapshots',
      summary: 'Stored snapshots per IP version, oldest first',
      query: snapshotsQuery,
      responses: {
        200: { description: 'Both keys, or only the one asked for', schema: snapshotsSchema },
        400: { description: 'Bad ip_version', schema: errorSchema },
      },
      cacheKey: inputKey('snapshots'),
      handle: async ({ query, reader }) => {
        const versions: IpVersion[] = query.ip_version ? [query.ip_version] : ['ipv4', 'ipv6']
        const body: Partial<Record<IpVersion, unknown>> = {}
        for (const version of versions) body[version] = await reader.snapshots(version)
        return jsonResponse(body)
      },
    }),
  ]
}
