import type { z } from 'zod'
import type { ErrorStyle } from './error-response.js'
import type { HttpError } from './http-error.js'

/** HTTP methods the APIs route. HEAD is served by the GET route of the same path. */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** What a route handler receives, already validated by the route's schemas. */
export interface RouteInput<P, Q, B> {
  params: P
  query: Q
  body: B
  request: Request
  url: URL
  /** What the route's `cacheKey` returned for this request (GET routes that have one). */
  cacheKey?: CacheKey
}

/**
 * One endpoint: method, path (itty-router syntax, relative to the API base), the zod schemas
 * that validate its input, and the handler. The same object feeds the router, the validation,
 * the OpenAPI document and the calendar's discovery index, so they never disagree.
 */
// biome-ignore lint/suspicious/noExplicitAny: defaults let heterogeneous routes share one array
export interface Route<P = any, Q = any, B = any> {
  method: Method
  path: string
  summary: string
  description?: string
  params?: z.ZodType<P>
  query?: z.ZodType<Q>
  /** Validates the parsed JSON body; an empty body arrives as `undefined`. */
  body?: z.ZodType<B>
  /**
   * Response schemas by status, for the OpenAPI document. `alternatives`: other media types the
   * same status can answer with (e.g. `text/calendar`), each a described text body.
   */
  responses?: Record<
    number,
    { description: string; schema?: z.ZodType; alternatives?: Record<string, string> }
  >
  /**
   * Conditional GET without running the query: a cheap key that changes whenever the answer
   * may (data revision + canonical input + credentials class). The core turns it into a strong
   * `ETag`, answers a matching `If-None-Match` with 304 before `handle`, and sets `ETag`,
   * `Cache-Control` (and `Vary`) on the 200. See {@link CacheKey}.
   */
  cacheKey?(input: NoInfer<RouteInput<P, Q, B>>): CacheKey | Promise<CacheKey>
  /**
   * The route's access rule, run before any input is read or validated, so a refused caller
   * learns nothing about the input rules (401 before 400/415). Throws to refuse. Routes whose
   * API checks access after validation (the calendar, as WordPress does) check in `handle`.
   */
  authorize?(request: Request): void
  handle(input: RouteInput<P, Q, B>): Response | Promise<Response>
}

/** What {@link Route.cacheKey} returns. */
export interface CacheKey {
  /** Changes whenever the answer may; hashed into the ETag. */
  key: string
  /**
   * Set when the answer depends on the caller's credentials: the answer gets
   * `Vary: Authorization`, and `holder` answers are `private` (no shared cache keeps them).
   */
  credentials?: 'anonymous' | 'holder'
  /** The data revision the key was made at: `handle` may answer at it without reading it again. */
  revision?: string
}

/** Identity helper that infers a route's input types from its schemas. */
export function route<P = undefined, Q = undefined, B = undefined>(
  definition: Route<P, Q, B>,
): Route<P, Q, B> {
  return definition
}

/** Part of the request a validation issue is about. */
export type InputPart = 'params' | 'query' | 'body'

/** A zod issue reduced to what error envelopes need. */
export interface InputIssue {
  path: PropertyKey[]
  message: string
}

/** One API mounted under a base path with its own error style. */
export interface Api {
  /** e.g. `/api` or `/cal/events/v1`. */
  base: string
  title: string
  version: string
  errorStyle: ErrorStyle
  routes: Route[]
  /** Response headers a cross-origin client may read (CORS `Access-Control-Expose-Headers`). */
  exposeHeaders?: readonly string[]
  /**
   * The HTTP error of an error its store throws on purpose (not found, conflict, bad query),
   * else `undefined`. The core calls it for every failure of the API's routes: the one place
   * store errors meet HTTP (see `httpErrorOf`).
   */
  mapError?(error: unknown): HttpError | undefined
  /** Turns validation issues into the API's own 400 error. */
  invalidInput(part: InputPart, issues: InputIssue[]): HttpError
  /** Releases what the API holds (e.g. stops its scheduler). */
  close?(): Promise<void>
}
