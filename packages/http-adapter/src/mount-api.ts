import { Router } from 'itty-router'
import type { z } from 'zod'
import { cacheHeaders, etagOf, ifNoneMatchHits, notModified } from './conditional-get.js'
import { errorResponse } from './error-response.js'
import { HttpError } from './http-error.js'
import { queryKey } from './query-key.js'
import { readJsonBody } from './read-json-body.js'
import type { Api, InputPart, Route } from './route.js'

/** Answers `request`, building every link on `origin` (the public one, never the request's). */
type ApiFetch = (request: Request, origin: string) => Promise<Response>

/**
 * Builds the router of one API: every route with its validation, then a 405 (with `Allow`)
 * for each known path under a method it lacks, then a 404 for everything else under the base.
 * Every failure becomes HTTP through `errorResponse` with the API's `mapError`: a 5xx goes to
 * `onError`, so the host's log has what the client is not shown.
 */
export function mountApi(api: Api, onError?: (error: unknown) => void): ApiFetch {
  const router = Router({
    base: api.base,
    catch: (error: unknown, request: Request) =>
      errorResponse(error, api.errorStyle, { mapError: api.mapError, onError }, request),
  })
  const methodsByPath = new Map<string, string[]>()
  for (const r of api.routes) {
    const methods = methodsByPath.get(r.path) ?? []
    methods.push(r.method)
    methodsByPath.set(r.path, methods)
    router[r.method.toLowerCase() as 'get'](
      r.path,
      (request: Request & { params: Record<string, string> }, origin: string) =>
        runRoute(api, r, request, origin),
    )
  }
  for (const [path, methods] of methodsByPath) {
    const allow = [...new Set([...methods, ...(methods.includes('GET') ? ['HEAD'] : [])])].join(
      ', ',
    )
    router.all(path, (request: Request) => {
      throw new HttpError(
        405,
        'method_not_allowed',
        `${request.method} is not allowed here; use ${allow}`,
        {
          headers: { allow },
        },
      )
    })
  }
  router.all('*', (request: Request) => {
    throw new HttpError(
      404,
      'not_found',
      `No route for ${request.method} ${new URL(request.url).pathname}`,
    )
  })
  return async (request, origin) => (await router.fetch(request, origin)) as Response
}

/**
 * The request's path and query under `origin`, so neither the `Host` header nor the URL the
 * host built from it can steer a link. The request itself stays as it came: rebuilding it
 * would turn a host's lightweight request (@hono/node-server) into a full one, twice.
 */
function publicUrlOf(request: Request, origin: string): URL {
  const url = new URL(request.url)
  return url.origin === origin ? url : new URL(`${origin}${url.pathname}${url.search}`)
}

async function runRoute(
  api: Api,
  r: Route,
  request: Request & { params: Record<string, string> },
  origin: string,
) {
  r.authorize?.(request)
  const url = publicUrlOf(request, origin)
  const params = validate(api, 'params', r.params, decodeParams(request.params))
  const query = validate(api, 'query', r.query, queryObject(url))
  const body = r.body ? validate(api, 'body', r.body, await readJsonBody(request)) : undefined
  const input = { params, query, body, request, url }
  const reads = r.cacheKey !== undefined || r.reads === true
  const reader = reads ? await api.reader?.() : undefined
  if (!r.cacheKey || request.method !== 'GET' || !reader) return r.handle({ ...input, reader })
  const cacheKey = r.cacheKey(input)
  // A route with other media types (the iCalendar feed by `Accept: text/calendar`) answers two
  // representations at one URL: each gets its own strong tag, and caches key on Accept.
  const negotiated = Object.values(r.responses ?? {}).some((answer) => answer.alternatives)
  const parts = [api.base, reader.revision, cacheKey.key]
  if (negotiated) parts.push(request.headers.get('accept') ?? '')
  const headers = cacheHeaders(etagOf(parts.join('\u0000')), cacheKey.credentials, negotiated)
  if (ifNoneMatchHits(request.headers.get('if-none-match'), headers.get('etag') ?? '')) {
    return notModified(headers)
  }
  const response = await r.handle({ ...input, reader, cacheKey: cacheKey.key })
  // Errors are not cached; a 200 carries the tag of its reader's revision (never newer than its data).
  if (response.status === 200)
    for (const [name, value] of headers) response.headers.set(name, value)
  return response
}

function validate(api: Api, part: InputPart, schema: z.ZodType | undefined, value: unknown) {
  if (!schema) return value
  const result = schema.safeParse(value)
  if (result.success) return result.data
  throw api.invalidInput(part, result.error.issues)
}

function decodeParams(raw: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(raw)) {
    try {
      out[key] = decodeURIComponent(value)
    } catch {
      throw new HttpError(
        400,
        'invalid_path',
        `Path segment '${key}' is not valid percent-encoding`,
      )
    }
  }
  return out
}

/**
 * Query string as an object; a repeated key becomes an array, `key[]` counts as `key` (see
 * {@link queryKey}). No prototype, so `__proto__` is data.
 */
function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null)
  for (const [raw, value] of url.searchParams) {
    const key = queryKey(raw)
    const prev = out[key]
    out[key] = prev === undefined ? value : ([] as string[]).concat(prev, value)
  }
  return out
}
