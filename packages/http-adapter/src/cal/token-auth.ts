import { createBearerTokens } from '../bearer-tokens.js'

/** Who is calling: anonymous, or the holder of a configured token. */
export type Caller =
  | { authenticated: false; reason: 'missing' | 'invalid' }
  | { authenticated: true }

/** Checks `Authorization: Bearer <token>` headers against configured tokens. */
export interface TokenAuth {
  identify(request: Request): Caller
  /** A digest of the configured token hashes (salts cache keys; reveals no token). */
  readonly salt: string
}

/**
 * The calendar's policy over the shared bearer rule: holders of any configured token write;
 * with none configured nobody authenticates (every write is 401).
 */
export function createTokenAuth(tokens: readonly string[]): TokenAuth {
  const bearer = createBearerTokens(tokens)
  return {
    salt: bearer.salt,
    identify(request) {
      const outcome = bearer.check(request)
      return outcome === 'valid'
        ? { authenticated: true }
        : { authenticated: false, reason: outcome }
    },
  }
}
