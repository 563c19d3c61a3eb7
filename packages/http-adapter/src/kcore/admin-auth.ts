import { createHash, timingSafeEqual } from 'node:crypto'
import { HttpError } from '../http-error.js'

/** Guards the mutating endpoints. */
export interface AdminAuth {
  /** Whether a token is configured at all. */
  readonly required: boolean
  /** Throws 401 `unauthorized` unless the request carries the admin bearer token (when one is set). */
  assert(request: Request): void
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest()

/**
 * `Authorization: Bearer <token>` against the configured admin token. Both sides are hashed
 * to fixed-length digests and compared with `timingSafeEqual`, so the comparison time does not
 * depend on where they differ. No token configured (undefined or blank): everybody passes.
 */
export function createAdminAuth(token: string | undefined): AdminAuth {
  const expected = token?.trim() ? digest(token.trim()) : undefined
  return {
    required: expected !== undefined,
    assert(request) {
      if (!expected) return
      const header = request.headers.get('authorization') ?? ''
      const match = /^Bearer[ \t]+(\S.*)$/i.exec(header.trim())
      const presented = match?.[1]?.trim()
      if (!presented) {
        throw unauthorized('This endpoint requires `Authorization: Bearer <token>`')
      }
      if (!timingSafeEqual(digest(presented), expected)) {
        throw unauthorized('The bearer token is not valid')
      }
    },
  }
}

const unauthorized = (message: string) =>
  new HttpError(401, 'unauthorized', message, {
    headers: { 'www-authenticate': 'Bearer realm="kcore"' },
  })
