import type { z } from 'zod'
import type { ErrorStyle } from './error-response.js'
import type { HttpError } from './http-error.js'

/** HTTP methods the APIs route. HEAD is served by the GET route of the same path. */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** What a route handler receives, already validated by the route's schemas. */
export interface RouteInput<P, Q, B, R = undefined> {
  params: P
  query: Q
  body: B
  request: Request
  url: URL
  /**
   * The API's reader for this request ({@link Api.reader}), opened once by the core for a route
   * that declares `cacheKey` or `reads`; its revision is the one in the answer's ETag.
   */
  reader: R
  /**
   * What the route's `cacheKey` returned (its `key`), computed once by the core for a GET: a
   * handler that keeps its answer in the reader's memo files it under this key.
   */
  cacheKey?: string
}

/**
 * One endpoint: method, path (itty-router syntax, relative to the API base), the zod schemas
 * that validate its input, and the handler. The same object feeds the router, the validation,
 * the OpenAPI document and the calendar's discovery index, so they never disagree.
 */
// biome-ignore lint/suspicious/noExplicitAny: defaults let heterogeneous routes share one array
export interface Route<P = any, Q = any, B = any, R = any> {
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
   * Conditional GET without running the query: the canonical input the answer depends on
   * besides the stored data (validated input with defaults filled in, credentials class). The
   * core opens the request's reader, hashes its revision and this key into a strong `ETag`,
   * answers a matching `If-None-Match` with 304 before `handle`, and sets `ETag`,
   * `Cache-Control` (and `Vary`) on the 200. See {@link CacheKey}.
   */
  cacheKey?(input: NoInfer<Omit<RouteInput<P, Q, B, R>, 'reader'>>): CacheKey
  /** The route reads stored data without a `cacheKey` (a read by POST): it gets a reader too. */
  reads?: true
  /**
   * The route's access rule, run before any input is read or validated, so a refused caller
   * learns nothing about the input rules (401 before 400/415). Throws to refuse. Routes whose
   * API checks access after validation (the calendar, as WordPress does) check in `handle`.
   */
  authorize?(request: Request): void
  handle(input: RouteInput<P, Q, B, R>): Response | Promise<Response>
}

/** What {@link Route.cacheKey} returns. */
export interface CacheKey {
  /** Everything the answer depends on besides the stored data; hashed into the ETag. */
  key: string
  /**
   * Set when the answer depends on the caller's credentials: the answer gets
   * `Vary: Authorization`, and `holder` answers are `private` (no shared cache keeps them).
   */
  credentials?: 'anonymous' | 'holder'
}

/** What every API's reader has: the data revision its reads are at. */
export interface Reader {
  readonly revision: string
}

/** Identity helper that infers a route's input types from its schemas. */
export function route<P = undefined, Q = undefined, B = undefined>(
  definition: Route<P, Q, B, undefined>,
): Route<P, Q, B, undefined> {
  return definition
}

/**
 * {@link route} for an API whose routes read through a reader of type `R`:
 * `const kcoreRoute = routeReading<KcoreReader>()`.
 */
export function routeReading<R extends Reader>() {
  return <P = undefined, Q = undefined, B = undefined>(
    // The core opens a reader only for routes that declare they read: one of the two is required.
    definition: Route<P, Q, B, R> &
      ({ cacheKey: NonNullable<Route<P, Q, B, R>['cacheKey']> } | { reads: true }),
  ): Route<P, Q, B, R> => definition
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
  mapError?(error: unknown, request?: Request): HttpError | undefined
  /**
   * Opens the reader a request's reads go through, at the store's committed revision (one
   * revision read). The core opens one per request for routes with a `cacheKey` or `reads`.
   */
  reader?(): Promise<Reader>
  /** Turns validation issues into the API's own 400 error. */
  invalidInput(part: InputPart, issues: InputIssue[]): HttpError
  /** Releases what the API holds (e.g. stops its scheduler). */
  close?(): Promise<void>
}
