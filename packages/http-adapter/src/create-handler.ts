import { createExplorer, type ExplorerOptions } from '@kcore/explorer'
import { cors } from 'itty-router'
import { type CalApiOptions, createCalApi } from './cal/index.js'
import { conditional } from './conditional-get.js'
import { errorResponse } from './error-response.js'
import { HttpError } from './http-error.js'
import { createKcoreApi, type KcoreApiOptions } from './kcore/index.js'
import { mountApi } from './mount-api.js'
import { DEFAULT_PUBLIC_URL, parsePublicUrl } from './public-url.js'
import { MAX_BODY_BYTES } from './read-json-body.js'
import type { Api } from './route.js'

/** One structured log line per request. */
export interface RequestLogEntry {
  method: string
  path: string
  status: number
  duration_ms: number
}

/** Options of {@link createHandler}. Nothing here is read from the environment. */
export interface HandlerOptions {
  /** The k-core trends API under `/api`; omitted → not served. */
  kcore?: KcoreApiOptions
  /** The calendar API under `/cal/events/v1`; omitted → not served. */
  cal?: CalApiOptions
  /** The trend explorer page at `/` (over the public `/api`); default on, `false` turns it off. */
  explorer?: boolean | ExplorerOptions
  /**
   * Origin every absolute link is built from (`https://events.example.org`); the request's
   * `Host` never is. A function is read per request (a host that learns its port on listen).
   * Default `http://localhost`.
   */
  publicUrl?: string | (() => string)
  /** Allowed CORS origins; default none (no CORS headers). */
  corsOrigins?: string[]
  /** Receives one entry per request; default: no logging. */
  log?: (entry: RequestLogEntry) => void
  /** Receives errors that became a 5xx, for the host's logs (never sent to clients). */
  onError?: (error: unknown) => void
}

/** The fetch-style handler, plus `close()` to stop what the APIs run in the background. */
export interface Handler {
  (request: Request): Promise<Response>
  close(): Promise<void>
}

/**
 * Creates the one handler serving both APIs. It runs unchanged under Node, Bun and Deno: mount
 * it with any server that speaks `Request`/`Response`.
 */
export function createHandler(options: HandlerOptions): Handler {
  const apis: Api[] = []
  if (options.kcore) apis.push(createKcoreApi(options.kcore))
  if (options.cal) apis.push(createCalApi(options.cal))
  const fixedUrl =
    typeof options.publicUrl === 'function'
      ? undefined
      : parsePublicUrl(options.publicUrl ?? DEFAULT_PUBLIC_URL)
  const publicOrigin = () => fixedUrl ?? parsePublicUrl((options.publicUrl as () => string)())
  const mounted = apis.map((api) => ({ api, fetch: mountApi(api, options.onError) }))
  const explorer =
    options.explorer === false
      ? undefined
      : createExplorer(options.explorer === true ? {} : options.explorer)
  const exposeHeaders = [...new Set(apis.flatMap((api) => api.exposeHeaders ?? []))].join(', ')
  const corsPair = options.corsOrigins?.length
    ? cors({ origin: options.corsOrigins, exposeHeaders })
    : undefined

  async function route(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname
    const target = mounted.find(({ api }) => path === api.base || path.startsWith(`${api.base}/`))
    const style = target?.api.errorStyle ?? 'plain'
    try {
      if (Number(request.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) {
        throw new HttpError(
          413,
          'payload_too_large',
          `Request body exceeds ${MAX_BODY_BYTES} bytes`,
        )
      }
      const page = target ? undefined : await explorer?.(request)
      if (page) return page
      if (!target) throw new HttpError(404, 'not_found', `No route for ${request.method} ${path}`)
      return await target.fetch(request, publicOrigin())
    } catch (error) {
      return errorResponse(
        error,
        style,
        { mapError: target?.api.mapError, onError: options.onError },
        request,
      )
    }
  }

  const handler = async (incoming: Request): Promise<Response> => {
    const started = performance.now()
    const isHead = incoming.method === 'HEAD'
    // HEAD runs the GET and drops its body here, so every header (Content-Length too) is the GET's.
    const request = isHead ? new Request(incoming, { method: 'GET' }) : incoming
    let response = corsPair?.preflight(request) ?? conditional(request, await route(request))
    if (corsPair) {
      response = corsPair.corsify(response, request)
      // The Fetch standard reads Expose-Headers on the actual response (itty-router's cors puts
      // it on the preflight only), so an allowed origin's script can read the list totals.
      if (exposeHeaders && response.headers.has('access-control-allow-origin'))
        response.headers.set('access-control-expose-headers', exposeHeaders)
    }
    response = bodyOf(response)
    response.headers.set('x-content-type-options', 'nosniff')
    if (isHead) response = withoutBody(response)
    options.log?.({
      method: incoming.method,
      path: new URL(incoming.url).pathname,
      status: response.status,
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
    })
    return response
  }
  return Object.assign(handler, {
    async close() {
      await Promise.all(apis.map((api) => api.close?.()))
    },
  })
}

/**
 * The response as it goes out. Its body is never read here: a body with a `Content-Length` was
 * measured where it was made (`jsonTextResponse`), and one without (a streamed export) goes out
 * chunked, page by page as the client reads. Checked without touching `body`, so a host's
 * lightweight Response (@hono/node-server's) stays one and goes to the socket as is.
 */
function bodyOf(response: Response): Response {
  return response.status === 204 || response.status === 304 ? withoutBody(response) : response
}

/**
 * The response with every header and no body (a HEAD, a 204, a 304). Status and headers are
 * copied before `body` is touched: a host's lightweight Response (@hono/node-server's) rebuilds
 * itself from its original init when `body` (or `statusText`) is read, and when given as another
 * Response's init, so headers set on it afterwards (ETag, nosniff) would be lost. The body is
 * cancelled unread: a streamed export closes its page reader without querying a page.
 */
function withoutBody(response: Response): Response {
  const init = { status: response.status, headers: new Headers(response.headers) }
  void response.body?.cancel()
  return new Response(null, init)
}
