import { createBearerTokens } from '../bearer-tokens.js'
import { HttpError } from '../http-error.js'

/** Guards the mutating endpoints. */
export interface AdminAuth {
  /** Whether a token is configured at all. */
  readonly required: boolean
  /** Throws 401 `unauthorized` unless the request carries the admin bearer token (when one is set). */
  assert(request: Request): void
}

/**
 * The k-core API's policy over the shared bearer rule: with an admin token configured, the
 * mutating endpoints need it; with none (undefined or blank), everybody passes.
 */
export function createAdminAuth(token: string | undefined): AdminAuth {
  const bearer = createBearerTokens(token === undefined ? [] : [token])
  return {
    required: bearer.configured,
    assert(request) {
      if (!bearer.configured) return
      const outcome = bearer.check(request)
      if (outcome === 'missing') {
        throw unauthorized('This endpoint requires `Authorization: Bearer <token>`')
      }
      if (outcome === 'invalid') throw unauthorized('The bearer token is not valid')
    },
  }
}

const unauthorized = (message: string) =>
  new HttpError(401, 'unauthorized', message, {
    headers: { 'www-authenticate': 'Bearer realm="kcore"' },
  })
