import type { RevisionMemo } from '@kcore/db'
import type { IpVersion } from '@kcore/engine'
import type { KcoreReader, TrendPoint, TrendView } from '@kcore/store'
import { HttpError } from '../http-error.js'
import { jsonTextResponse } from '../json-response.js'
import type { Route } from '../route.js'
import { kcoreRoute } from './kcore-context.js'
import { multiTrendBody, trendParams, trendQuery } from './request-schemas.js'
import { anyTrendSchema, errorSchema, multiTrendSchema } from './response-schemas.js'
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

/** JSON bytes, kept in `memo` at the reader's revision under `key`, as a response. */
async function memoJson(
  memo: RevisionMemo | undefined,
  reader: KcoreReader,
  key: string,
  build: () => Promise<Uint8Array<ArrayBuffer>>,
): Promise<Response> {
  return jsonTextResponse(await (memo ? memo.get(reader.revision, key, build) : build()))
}

/** The canonical input of a single trend (validated, so equal answers have equal keys). */
const singleKey = (asn: number, q: RangeAsked & { ip_version: IpVersion | 'both' }) =>
  `1|${q.ip_version}|${asn}|${q.start_date ?? ''}|${q.end_date ?? ''}`

/** One AS's trend in each IP version, keyed by version; 404 when neither knows the ASN. */
async function bothVersions(reader: KcoreReader, asn: number, query: RangeAsked) {
  const [v4, v6] = await Promise.all(
    (['ipv4', 'ipv6'] as const).map((v) => reader.trends(v, [asn], rangeOf(query))),
  )
  const views = { ipv4: v4!, ipv6: v6! }
  const points = {
    ipv4: views.ipv4.trends.get(asn) ?? [],
    ipv6: views.ipv6.trends.get(asn) ?? [],
  }
  const known = (v: 'ipv4' | 'ipv6') => points[v].length > 0 || views[v].known.has(asn)
  if (!known('ipv4') && !known('ipv6'))
    throw new HttpError(404, 'asn_not_found', `ASN ${asn} has no ipv4 or ipv6 data`)
  const head = {
    asn,
    ip_version: 'both',
    date_range: {
      ipv4: usedRange(views.ipv4.dateRange, query),
      ipv6: usedRange(views.ipv6.dateRange, query),
    },
  }
  return new JsonBytes()
    .objectWith(head, 'trend_data', (out) => out.record(points, (m, p) => m.points(p)))
    .bytes()
}

/**
 * `GET /trends/:asn` and `POST /trends`. Their JSON bytes are kept in `memo` under the
 * reader's revision (none kept when it is undefined).
 */
export function trendRoutes(memo: RevisionMemo | undefined): Route[] {
  return [
    kcoreRoute({
      method: 'GET',
      path: '/trends/:asn',
      summary: "One AS's shell-index trend",
      description:
        '404 `asn_not_found` only when the ASN appears in no stored snapshot of the IP version; ' +
        'an ASN without points in the range gets an empty `trend_data`. `ip_version=both` answers ' +
        '`date_range` and `trend_data` keyed by version (`ipv4`, `ipv6`), 404 only when the ASN ' +
        'appears in no stored snapshot of either.',
      params: trendParams,
      query: trendQuery,
      responses: {
        200: { description: 'The trend, oldest first', schema: anyTrendSchema },
        400: { description: 'Bad ASN, IP version or dates', schema: errorSchema },
        404: { description: 'The ASN appears in no snapshot', schema: errorSchema },
      },
      cacheKey: ({ params, query }) => ({ key: singleKey(params.asn, query) }),
      handle: ({ params, query, reader, cacheKey }) => {
        const { asn } = params
        const version = query.ip_version
        return memoJson(memo, reader, cacheKey ?? singleKey(asn, query), async () => {
          if (version === 'both') return bothVersions(reader, asn, query)
          const view = await reader.trends(version, [asn], rangeOf(query))
          const dateRange = usedRange(view.dateRange, query)
          const points = view.trends.get(asn) ?? []
          if (points.length === 0 && !view.known.has(asn)) {
            throw new HttpError(404, 'asn_not_found', `ASN ${asn} has no ${version} data`)
          }
          const head = { asn, ip_version: version, date_range: dateRange }
          return new JsonBytes().objectWith(head, 'trend_data', (out) => out.points(points)).bytes()
        })
      },
    }),
    kcoreRoute({
      method: 'POST',
      path: '/trends',
      summary: 'Shell-index trends of several ASes',
      description:
        'Never 404: unknown ASNs get an empty array. `ip_version: "both"` answers `date_range` ' +
        'and `trend_data` keyed by version (`ipv4`, `ipv6`), each half the single-version answer.',
      body: multiTrendBody,
      responses: {
        200: { description: 'A key per ASN', schema: multiTrendSchema },
        400: { description: 'Bad body', schema: errorSchema },
      },
      reads: true,
      handle: ({ body, reader }) => {
        const version = body.ip_version
        const key = `n|${version}|${body.asns.join(',')}|${body.start_date ?? ''}|${body.end_date ?? ''}`
        return memoJson(memo, reader, key, async () => {
          const versions = version === 'both' ? (['ipv4', 'ipv6'] as const) : [version]
          const halves = await Promise.all(
            versions.map(async (v) => {
              const view = await reader.trends(v, body.asns, rangeOf(body))
              const trendData: Record<string, readonly TrendPoint[]> = {}
              for (const asn of body.asns) trendData[String(asn)] = view.trends.get(asn) ?? []
              return { dateRange: usedRange(view.dateRange, body), trendData }
            }),
          )
          const writeData = (out: JsonBytes, data: Record<string, readonly TrendPoint[]>) =>
            out.record(data, (member, points) => member.points(points))
          if (version !== 'both') {
            const [{ dateRange, trendData }] = halves as [(typeof halves)[number]]
            const head = { asns: body.asns, ip_version: version, date_range: dateRange }
            return new JsonBytes()
              .objectWith(head, 'trend_data', (out) => writeData(out, trendData))
              .bytes()
          }
          const [v4, v6] = halves as [(typeof halves)[number], (typeof halves)[number]]
          const head = {
            asns: body.asns,
            ip_version: 'both',
            date_range: { ipv4: v4.dateRange, ipv6: v6.dateRange },
          }
          return new JsonBytes()
            .objectWith(head, 'trend_data', (out) =>
              out.record({ ipv4: v4.trendData, ipv6: v6.trendData }, writeData),
            )
            .bytes()
        })
      },
    }),
  ]
}
