import { OPENAPI_CACHE_CONTROL } from '../conditional-get.js'
import { jsonTextResponse } from '../json-response.js'
import { openApiDocument, openApiPath } from '../openapi.js'
import { type Api, type Route, route } from '../route.js'

/** Operations that need the admin token when one is configured. */
const ADMIN_OPERATIONS: [path: string, method: string][] = [
  ['/refresh', 'post'],
  ['/scheduler/update', 'post'],
]

/**
 * `GET /openapi.json`: OpenAPI 3.1 generated from the same zod schemas the routes validate
 * with. The document is built once, on the first request.
 */
export function openApiRoute(
  api: Pick<Api, 'base' | 'title' | 'version'>,
  documented: () => Route[],
): Route {
  let cached: string | undefined
  const build = () => {
    const doc = openApiDocument({ ...api, routes: documented() }) as ReturnType<
      typeof openApiDocument
    > & { components?: unknown }
    doc.components = {
      securitySchemes: {
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'Only required when the server has an admin token (KCORE_ADMIN_TOKEN)',
        },
      },
    }
    for (const [path, method] of ADMIN_OPERATIONS) {
      const operation = doc.paths[openApiPath(api.base + path)]?.[method] as
        | Record<string, unknown>
        | undefined
      if (operation) operation.security = [{}, { adminToken: [] }]
    }
    return JSON.stringify(doc)
  }
  return route({
    method: 'GET',
    path: '/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    handle: () => {
      cached ??= build()
      return jsonTextResponse(cached, 200, { 'cache-control': OPENAPI_CACHE_CONTROL })
    },
  })
}
