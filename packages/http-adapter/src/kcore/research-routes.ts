import { jsonResponse } from '../json-response.js'
import type { Route } from '../route.js'
import { inputKey, kcoreRoute } from './kcore-context.js'
import {
  coreQuery,
  coreSchema,
  distributionSchema,
  moversQuery,
  moversSchema,
  shellsQuery,
  shellsSchema,
  snapshotDateParams,
  snapshotRecordSchema,
  versionQuery,
} from './research-schemas.js'
import { errorSchema } from './response-schemas.js'
import { SHELL_CONTENT_TYPES, shellListStream } from './shell-stream.js'

const notFound = {
  description: 'No snapshot of the IP version is stored for the date',
  schema: errorSchema,
}
const badRequest = { description: 'Bad date, IP version or parameter', schema: errorSchema }

/**
 * The research routes of the spec's "Beyond NetCores": a snapshot's record, its whole shell
 * list (streamed), its k-core or top-N, its shell-size distribution, movers between two
 * snapshots and a per-ASN overview. Every answer has a strong ETag of the data revision and its
 * input, with `no-cache` (a snapshot can be re-ingested), and is read from one committed state.
 */
export function researchRoutes(): Route[] {
  return [
    kcoreRoute({
      method: 'GET',
      path: '/snapshots/:date',
      summary: "A snapshot's record with its provenance",
      params: snapshotDateParams,
      query: versionQuery,
      responses: {
        200: { description: 'The record', schema: snapshotRecordSchema },
        400: badRequest,
        404: notFound,
      },
      cacheKey: inputKey('record'),
      handle: async ({ params, query, reader }) =>
        jsonResponse(await reader.snapshot(query.ip_version, params.date)),
    }),
    kcoreRoute({
      method: 'GET',
      path: '/snapshots/:date/shells',
      summary: 'Every AS of a snapshot with its shell index, streamed',
      description:
        'Ascending by ASN. `format=json` (default) is `{date, ip_version, max_shell_index, count, shells}`; ' +
        '`ndjson` one `{asn, shell_index, normalized_shell_index}` per line; `csv` with a header row. ' +
        "`include=names` adds each AS's registry `name` (null, or an empty CSV field, where none; " +
        'CSV fields quoted as RFC 4180 says). ' +
        'Streamed from keyset pages of 10,000 rows.',
      params: snapshotDateParams,
      query: shellsQuery,
      responses: {
        200: { description: 'The shell list', schema: shellsSchema },
        400: badRequest,
        404: notFound,
      },
      cacheKey: inputKey('shells'),
      handle: async ({ params, query, reader }) => {
        // Record, count and rows of one read of the snapshot: the body finishes from that
        // content whatever is written while a slow client reads it.
        const list = await reader.shellList(query.ip_version, params.date, {
          minShell: query.min_shell ?? 0,
        })
        const head = {
          date: params.date,
          ip_version: query.ip_version,
          max_shell_index: list.snapshot.max_shell_index,
          count: list.count,
        }
        const names =
          query.include === 'names' ? (asns: readonly number[]) => reader.asNames(asns) : undefined
        return new Response(shellListStream(query.format, head, list.pages, names), {
          // A Headers object: the core's headers survive a lightweight Response (measuredResponse).
          headers: new Headers({ 'content-type': SHELL_CONTENT_TYPES[query.format] }),
        })
      },
    }),
    kcoreRoute({
      method: 'GET',
      path: '/snapshots/:date/core',
      summary: 'The k-core or the top-N ASes of a snapshot',
      description:
        '`k` defaults to the max shell index (the innermost core); a k above it is an empty core. ' +
        '`top=N` takes the N highest shell indices (ties by ASN) and reports the lowest as `k`.',
      params: snapshotDateParams,
      query: coreQuery,
      responses: {
        200: { description: 'The core, ASNs ascending', schema: coreSchema },
        400: badRequest,
        404: notFound,
      },
      cacheKey: inputKey('core'),
      handle: async ({ params, query, reader }) => {
        const select = query.top !== undefined ? { top: query.top } : { k: query.k }
        const core = await reader.core(query.ip_version, params.date, select)
        if (query.include !== 'names') return jsonResponse(core)
        const names = await reader.asNames(core.asns)
        return jsonResponse({ ...core, names: core.asns.map((asn) => names.get(asn) ?? null) })
      },
    }),
    kcoreRoute({
      method: 'GET',
      path: '/snapshots/:date/distribution',
      summary: 'How many ASes each shell of a snapshot holds',
      params: snapshotDateParams,
      query: versionQuery,
      responses: {
        200: { description: 'One entry per non-empty shell', schema: distributionSchema },
        400: badRequest,
        404: notFound,
      },
      cacheKey: inputKey('distribution'),
      handle: async ({ params, query, reader }) =>
        jsonResponse(await reader.distribution(query.ip_version, params.date)),
    }),
    kcoreRoute({
      method: 'GET',
      path: '/movers',
      summary:
        'ASes that entered or left the k-core, and the largest rises and falls, between two snapshots',
      query: moversQuery,
      responses: {
        200: { description: 'The movers', schema: moversSchema },
        400: badRequest,
        404: { description: '`from` or `to` is not a stored snapshot date', schema: errorSchema },
      },
      cacheKey: inputKey('movers'),
      handle: async ({ query, reader }) => {
        const movers = await reader.movers(query.ip_version, query.from, query.to, {
          k: query.k,
          limit: query.limit,
        })
        if (query.include !== 'names') return jsonResponse(movers)
        const lists = [movers.entered, movers.left, movers.risers, movers.fallers]
        const names = await reader.asNames(lists.flatMap((list) => list.map((m) => m.asn)))
        const named = <T extends { asn: number }>(list: T[]) =>
          list.map(({ asn, ...rest }) => ({ asn, name: names.get(asn) ?? null, ...rest }))
        return jsonResponse({
          ...movers,
          entered: named(movers.entered),
          left: named(movers.left),
          risers: named(movers.risers),
          fallers: named(movers.fallers),
        })
      },
    }),
  ]
}
