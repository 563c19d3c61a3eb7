import { createHmac, timingSafeEqual } from 'node:crypto'
import { CalStoreError } from './errors.js'
import type { RecordKind } from './status.js'

/**
 * A changes-feed token that cannot be followed (API: 410 `sync-token-expired`): older than
 * the history kept, or not made by this database (garbage, forged, another server's).
 */
export class CalSyncTokenExpiredError extends CalStoreError {
  constructor(reason: string) {
    super('sync_token_expired', `The sync token cannot be followed: ${reason}; list again`)
    this.name = 'CalSyncTokenExpiredError'
  }
}

/**
 * Where a feed reader stands: every change of revisions ≤ `revision` is behind it, and, when
 * `after` is set, the changes of `revision + 1` up to record `after` in the feed's order
 * (kind, then id): a page may end inside a revision.
 */
export interface FeedPosition {
  revision: number
  after?: { kind: RecordKind; id: number }
}

/** Kinds as they are written into tokens, in the feed's order within a revision. */
const KIND_CODES: Record<RecordKind, string> = {
  category: 'c',
  event: 'e',
  organizer: 'o',
  tag: 't',
  venue: 'v',
}
const KIND_OF: Record<string, RecordKind> = Object.fromEntries(
  Object.entries(KIND_CODES).map(([kind, code]) => [code, kind as RecordKind]),
)

/** Bytes of the HMAC-SHA256 a token keeps (128 bits: forging one is out of reach). */
const MAC_BYTES = 16

/** Longest token accepted; anything longer is garbage without being parsed. */
const MAX_TOKEN_LENGTH = 80

/**
 * Signs and reads feed tokens with the database's secret (`cal_sync.secret`, made by the
 * migration): `<revision>[.<kind code><id>].<mac>`, the MAC over the part before it. Every
 * process on the database makes and accepts the same tokens; no other database's.
 */
export function feedTokens(secret: string) {
  const mac = (payload: string) =>
    createHmac('sha256', secret).update(payload).digest().subarray(0, MAC_BYTES)
  return {
    encode(position: FeedPosition): string {
      const { revision, after } = position
      const payload = after ? `${revision}.${KIND_CODES[after.kind]}${after.id}` : `${revision}`
      return `${payload}.${mac(payload).toString('base64url')}`
    },
    /** The position of `token`; throws {@link CalSyncTokenExpiredError} unless this database made it. */
    decode(token: string): FeedPosition {
      const cut = token.lastIndexOf('.')
      if (token.length > MAX_TOKEN_LENGTH || cut < 0) throw new CalSyncTokenExpiredError('garbage')
      const payload = token.slice(0, cut)
      const given = Buffer.from(token.slice(cut + 1), 'base64url')
      const expected = mac(payload)
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new CalSyncTokenExpiredError('not made by this server')
      }
      // Signed by us, so well formed; parsed strictly all the same.
      const match = /^(\d{1,15})(?:\.([a-z])(\d{1,10}))?$/.exec(payload)
      const kind = match?.[2] === undefined ? undefined : KIND_OF[match[2]]
      if (!match || (match[2] !== undefined && !kind)) throw new CalSyncTokenExpiredError('garbage')
      const revision = Number(match[1])
      return kind ? { revision, after: { kind, id: Number(match[3]) } } : { revision }
    },
  }
}

export type FeedTokens = ReturnType<typeof feedTokens>
