import { createHash, timingSafeEqual } from 'node:crypto'

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

const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest()

/**
 * Keeps only SHA-256 hashes of the tokens; a presented token is hashed and compared with every
 * stored hash in constant time (no early exit), so neither timing nor logs reveal tokens.
 * Empty tokens in the configuration are ignored; with none configured nobody authenticates.
 */
export function createTokenAuth(tokens: readonly string[]): TokenAuth {
  const hashes = tokens.filter((t) => t.trim() !== '').map((t) => digest(t.trim()))
  const salt = createHash('sha256')
    .update(
      hashes
        .map((h) => h.toString('hex'))
        .sort()
        .join(','),
    )
    .digest('hex')
  return {
    salt,
    identify(request) {
      const header = request.headers.get('authorization')
      const match = header ? /^Bearer[ \t]+(.*)$/i.exec(header.trim()) : null
      const presented = match?.[1]?.trim() ?? ''
      if (!presented) return { authenticated: false, reason: 'missing' }
      const hash = digest(presented)
      let found = false
      for (const stored of hashes) found = timingSafeEqual(stored, hash) || found
      return found ? { authenticated: true } : { authenticated: false, reason: 'invalid' }
    },
  }
}
