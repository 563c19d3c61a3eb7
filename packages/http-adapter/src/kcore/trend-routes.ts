import type { IpVersion } from '@kcore/engine'
import type { TrendPoint, TrendView } from '@kcore/store'
import { HttpError } from '../http-error.js'
import { jsonTextResponse } from '../json-response.js'
import { type Route, route } from '../route.js'
import type { KcoreContext } from './kcore-context.js'
import { multiTrendBody, trendParams, trendQuery } from './request-schemas.js'
import { errorSchema, multiTrendSchema, singleTrendSchema } from './response-schemas.js'
import { revisionKey } from './revision-key.js'
import { JsonBytes } from './trend-json.js'

interface RangeAsked {
  start_date?: string | undefined
  end_date?: string | undefined
}

/**
 * The range a trend answer reports: each bound as requested, else the earliest/latest stored
 * snapshot of the version (null when none is stored). A default never inverts the range: when
 * it would fall on the wrong side of the given bound it takes that bound's value (the points
 * are unchanged, none is stored there).
 */
function usedRange(stored: TrendView['dateRange'], asked: RangeAsked) {
  const start = asked.start_date ?? stored?.earliest ?? null
  const end = asked.end_date ?? stored?.latest ?? null
  if (start !== null && end !== null && start > end) {
    // Both given and inverted is refused by the schema, so exactly one was defaulted.
    return asked.start_date ? { start, end: start } : { start: end, end }
  }
  return { start, end }
}

const rangeOf = (asked: RangeAsked) => ({ start: asked.start_date, end: asked.end_date })

/**
 * The answer's JSON bytes, from the cache when one is configured, filed under the data revision
 * (the one the request's ETag was made at, else read here): an entry holds data at least as new
 * as its revision, and an ingest in any process is seen by the next request.
 */
async function cachedJson(
  ctx: KcoreContext,
  key: string,
  build: () => Promise<Uint8Array<ArrayBuffer>>,
  revision?: string,
) {
  // Without a cache the revision is not read here: every read costs a round trip.
  const bytes = ctx.cache
    ? await ctx.cache.get(revision ?? (await ctx.store.revision()), key, build)
    : await build()
  return jsonTextResponse(bytes)
}

/** The canonical input of a single trend (validated, so equal answers have equal keys). */
const singleKey = (asn: number, q: RangeAsked & { ip_version: IpVersion }) =>
  `1|${q.ip_version}|${asn}|${q.start_date ?? ''}|${q.end_date ?? ''}`

/** `GET /trends/:asn` and `POST /trends`. */
export function trendRoutes(ctx: KcoreContext): Route[] {
  const { store } = ctx
  return [
    route({
      method: 'GET',
      path: '/trends/:asn',
      summary: "One AS's shell-index trend",
      description:
        '404 `asn_not_found` only when the ASN appears in no stored snapshot of the IP version; ' +
        'an ASN without points in the range gets an empty `trend_data`.',
      params: trendParams,
      query: trendQuery,
      responses: {
        200: { description: 'The trend, oldest first', schema: singleTrendSchema },
        400: { description: 'Bad ASN, IP version or dates', schema: errorSchema },
        404: { description: 'The ASN appears in no snapshot', schema: errorSchema },
      },
      cacheKey: revisionKey(ctx, 'trend'),
      handle: ({ params, query, cacheKey }) => {
        const { asn } = params
        const version = query.ip_version
        const key = singleKey(asn, query)
        return cachedJson(
          ctx,
          key,
          async () => {
            // At the ETag's revision: no second read when the store's read model is there.
            const view = await store.trendView(version, [asn], rangeOf(query), cacheKey?.revision)
            const dateRange = usedRange(view.dateRange, query)
            const points = view.trends.get(asn) ?? []
            if (points.length === 0 && !view.known.has(asn)) {
              throw new HttpError(404, 'asn_not_found', `ASN ${asn} has no ${version} data`)
            }
            const head = { asn, ip_version: version, date_range: dateRange }
            return new JsonBytes()
              .objectWith(head, 'trend_data', (out) => out.points(points))
              .bytes()
          },
          cacheKey?.revision,
        )
      },
    }),
    route({
      method: 'POST',
      path: '/trends',
      summary: 'Shell-index trends of several ASes',
      description: 'Never 404: unknown ASNs get an empty array.',
      body: multiTrendBody,
      responses: {
        200: { description: 'A key per ASN', schema: multiTrendSchema },
        400: { description: 'Bad body', schema: errorSchema },
      },
      handle: ({ body }) => {
        const version = body.ip_version
        const key = `n|${version}|${body.asns.join(',')}|${body.start_date ?? ''}|${body.end_date ?? ''}`
        return cachedJson(ctx, key, async () => {
          const view = await store.trendView(version, body.asns, rangeOf(body))
          const dateRange = usedRange(view.dateRange, body)
          const trendData: Record<string, readonly TrendPoint[]> = {}
          for (const asn of body.asns) trendData[String(asn)] = view.trends.get(asn) ?? []
          const head = { asns: body.asns, ip_version: version, date_range: dateRange }
          return new JsonBytes()
            .objectWith(head, 'trend_data', (out) =>
              out.record(trendData, (member, points) => member.points(points)),
            )
            .bytes()
        })
      },
    }),
  ]
}
