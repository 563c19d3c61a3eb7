import { z } from 'zod'
import { OPENAPI_CACHE_CONTROL } from '../conditional-get.js'
import { HttpError } from '../http-error.js'
import { jsonResponse } from '../json-response.js'
import { openApiDocument } from '../openapi.js'
import { type Api, type Route, route } from '../route.js'
import { CAL_BASE, CAL_NAMESPACE } from './cal-api-options.js'
import { discoveryRoutes } from './discovery.js'

const indexQuery = z.object({
  namespace: z.string().optional().describe(`The namespace to describe (only ${CAL_NAMESPACE})`),
  context: z
    .enum(['view', 'embed', 'edit', 'help'])
    .optional()
    .describe('Scope of the request (default view)'),
})

/** `GET /` (the namespace index) and `GET /doc` (OpenAPI 3.1); `api` is read at request time. */
export function namespaceRoutes(api: () => Api): Route[] {
  return [
    route({
      method: 'GET',
      path: '/',
      summary: 'Namespace index: every route with its methods and arguments',
      query: indexQuery,
      handle: ({ query, url }) => {
        const namespace = query.namespace?.replace(/^\/+|\/+$/g, '')
        if (namespace !== undefined && namespace !== CAL_NAMESPACE) {
          throw new HttpError(
            404,
            'rest_invalid_namespace',
            'The specified namespace could not be found.',
          )
        }
        return jsonResponse(
          {
            namespace: CAL_NAMESPACE,
            routes: discoveryRoutes(api().routes, {
              namespace: CAL_NAMESPACE,
              base: CAL_BASE,
              origin: url.origin,
            }),
          },
          200,
          { 'cache-control': OPENAPI_CACHE_CONTROL },
        )
      },
    }),
    route({
      method: 'GET',
      path: '/doc',
      summary: 'OpenAPI 3.1 document of this API',
      handle: () =>
        jsonResponse(openApiDocument(api()), 200, { 'cache-control': OPENAPI_CACHE_CONTROL }),
    }),
  ]
}
