import { createHash } from 'node:crypto'
import type { CacheKey } from './route.js'

/**
 * Conditional GET (RFC 9110 §13.1.2): whether an `If-None-Match` header matches an entity tag.
 * Weak comparison: `W/"x"` matches `"x"`; `*` matches any current representation.
 */
export function ifNoneMatchHits(header: string | null, etag: string): boolean {
  if (header === null) return false
  const trimmed = header.trim()
  if (trimmed === '*') return true
  const opaque = stripWeak(etag)
  for (const candidate of trimmed.match(/(?:W\/)?"[^"]*"/g) ?? []) {
    if (stripWeak(candidate) === opaque) return true
  }
  return false
}

const stripWeak = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag)

/**
 * The strong ETag of a route's cache key: a SHA-256 digest (128 bits shown), so no input leaks
 * into headers. `node:crypto`'s synchronous hash (Node, Bun and Deno all have it): WebCrypto's
 * `subtle.digest` costs a job and a promise per request for a few dozen bytes.
 */
export function etagOf(key: string): string {
  return `"${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 32)}"`
}

/**
 * The caching headers of a route's answer (and its 304): revalidate every time, since a write
 * or an ingest can change it; `private` and `Vary: Authorization` where credentials matter;
 * `Vary: Accept` where the route answers other media types by the `Accept` header.
 */
export function cacheHeaders(
  etag: string,
  credentials: CacheKey['credentials'],
  negotiated = false,
): Headers {
  const headers = new Headers({ etag })
  headers.set('cache-control', credentials === 'holder' ? 'private, no-cache' : 'no-cache')
  const vary = [credentials !== undefined && 'Authorization', negotiated && 'Accept']
  if (vary.some(Boolean)) headers.set('vary', vary.filter(Boolean).join(', '))
  return headers
}

/** Headers a 304 keeps (RFC 9110 §15.4.5): those a 200 would have sent that caches update. */
const KEPT = ['cache-control', 'content-location', 'date', 'etag', 'expires', 'vary']

/** The 304 for a representation whose headers are `from`: no body, only the cache headers. */
export function notModified(from: Headers): Response {
  const headers = new Headers()
  for (const name of KEPT) {
    const value = from.get(name)
    if (value !== null) headers.set(name, value)
  }
  return new Response(null, { status: 304, headers })
}

/**
 * A route's answer to a GET, made conditional: a 200 carrying an `ETag` that the request's
 * `If-None-Match` matches becomes a 304. Any route that sets its own `ETag` gets this for free.
 */
export function conditional(request: Request, response: Response): Response {
  if (request.method !== 'GET' || response.status !== 200) return response
  const etag = response.headers.get('etag')
  if (etag === null || !ifNoneMatchHits(request.headers.get('if-none-match'), etag)) {
    return response
  }
  return notModified(response.headers)
}

/** The OpenAPI and discovery documents change only with a deploy: any cache may keep them an hour. */
export const OPENAPI_CACHE_CONTROL = 'public, max-age=3600'
