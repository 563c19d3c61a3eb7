import { jsonResponse } from '../json-response.js'
import type { Route } from '../route.js'
import { asnOverviewSchema, asnParams, asnSearchQuery, asnSearchSchema } from './asn-schemas.js'
import { inputKey, kcoreRoute } from './kcore-context.js'
import { errorSchema } from './response-schemas.js'

/** `GET /asns/{asn}` (where an AS appears, with its registry name) and `GET /asns?search=`. */
export function asnRoutes(): Route[] {
  return [
    kcoreRoute({
      method: 'GET',
      path: '/asns/:asn',
      summary: 'Where an AS appears, per IP version, and what the AS registry says of it',
      description:
        '404 `asn_not_found` only when the ASN is in no stored snapshot and not in the AS ' +
        'registry; a registry entry without snapshot data has both versions null.',
      params: asnParams,
      responses: {
        200: {
          description: 'First and last sighting, the latest point, name and address space',
          schema: asnOverviewSchema,
        },
        400: { description: 'Bad ASN', schema: errorSchema },
        404: {
          description: 'The ASN is in no snapshot and not in the registry',
          schema: errorSchema,
        },
      },
      cacheKey: inputKey('asn'),
      handle: async ({ params, reader }) => jsonResponse(await reader.asnOverview(params.asn)),
    }),
    kcoreRoute({
      method: 'GET',
      path: '/asns',
      summary: 'Find ASes by name or number in the AS registry',
      description:
        'Case- and accent-insensitive: the ASN itself first (`13335`, `AS13335`), then names ' +
        'equal to the search, starting with it, with a word starting with it, then containing it.',
      query: asnSearchQuery,
      responses: {
        200: { description: 'The matches, best first', schema: asnSearchSchema },
        400: { description: 'Bad search or limit', schema: errorSchema },
      },
      cacheKey: inputKey('asn-search'),
      handle: async ({ query, reader }) => {
        const [asns, registry] = await Promise.all([
          reader.searchAses(query.search, { limit: query.limit }),
          reader.asRegistry(),
        ])
        return jsonResponse({
          search: query.search,
          registry: registry && { source: registry.source, date: registry.date },
          asns,
        })
      },
    }),
  ]
}
