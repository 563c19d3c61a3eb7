import { createHash, timingSafeEqual } from 'node:crypto'

/** What a request's `Authorization` header proves against a set of bearer tokens. */
export type BearerCheck = 'valid' | 'missing' | 'invalid'

/** A set of accepted bearer tokens, kept as SHA-256 digests only. */
export interface BearerTokens {
  /** Whether any (non-blank) token is configured. */
  readonly configured: boolean
  /** A digest of the configured token digests (salts cache keys; reveals no token). */
  readonly salt: string
  /** Checks `Authorization: Bearer <token>` (scheme case-insensitive, token trimmed). */
  check(request: Request): BearerCheck
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest()

/**
 * The one bearer-token rule of both APIs (each maps the outcome to its own policy and error).
 * Blank tokens are ignored. A presented token is hashed and compared with every stored digest
 * with `timingSafeEqual` and no early exit, so neither timing nor logs reveal a token.
 */
export function createBearerTokens(tokens: readonly string[]): BearerTokens {
  const digests = tokens.filter((t) => t.trim() !== '').map((t) => digest(t.trim()))
  const salt = createHash('sha256')
    .update(
      digests
        .map((d) => d.toString('hex'))
        .sort()
        .join(','),
    )
    .digest('hex')
  return {
    configured: digests.length > 0,
    salt,
    check(request) {
      const header = request.headers.get('authorization')
      const match = header ? /^Bearer[ \t]+(.*)$/i.exec(header.trim()) : null
      const presented = match?.[1]?.trim() ?? ''
      if (!presented) return 'missing'
      const hash = digest(presented)
      let found = false
      for (const stored of digests) found = timingSafeEqual(stored, hash) || found
      return found ? 'valid' : 'invalid'
    },
  }
}
