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
 *
 * With `initial`, the reader is in a full sync pinned at `revision` (r0): it has been given
 * every record up to `after` in (kind, id) order; the feed follows from r0 once it is done.
 */
export interface FeedPosition {
  revision: number
  after?: { kind: RecordKind; id: number }
  initial?: boolean
}

/** A token read back: where it stands and when it was made (its age decides expiry). */
export interface FeedToken {
  position: FeedPosition
  /** The stamp of the position's revision in the history that made the token (0017). */
  stamp: number
  /** When the history after {@link position} was last seen complete (whole seconds). */
  issued: Date
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
const MAX_TOKEN_LENGTH = 88

/**
 * Signs and reads feed tokens with the database's secret (`cal_sync.secret`, made by the
 * migration): `[s]<revision>-<stamp>[.<kind code><id>].<issued>.<mac>`, `s` marking a full
 * sync's cursor, `stamp` the revision's stamp (base 36) that tells which history the revision
 * is of, `issued` in seconds since 1970 (base 36), the MAC over the part before it. Every process
 * on the database makes and accepts the same tokens; no other database's (a restored copy
 * shares the secret, so {@link checkTokenHistory} checks the stamp).
 */
export function feedTokens(secret: string) {
  const mac = (payload: string) =>
    createHmac('sha256', secret).update(payload).digest().subarray(0, MAC_BYTES)
  return {
    encode(position: FeedPosition, stamp: number, issued: Date): string {
      const { revision, after, initial } = position
      const at = `${initial ? 's' : ''}${revision}-${stamp.toString(36)}`
      const cursor = after ? `${at}.${KIND_CODES[after.kind]}${after.id}` : at
      const payload = `${cursor}.${Math.floor(issued.getTime() / 1000).toString(36)}`
      return `${payload}.${mac(payload).toString('base64url')}`
    },
    /** What `token` says; throws {@link CalSyncTokenExpiredError} unless this database made it. */
    decode(token: string): FeedToken {
      const cut = token.lastIndexOf('.')
      if (token.length > MAX_TOKEN_LENGTH || cut < 0) throw new CalSyncTokenExpiredError('garbage')
      const payload = token.slice(0, cut)
      const given = Buffer.from(token.slice(cut + 1), 'base64url')
      const expected = mac(payload)
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new CalSyncTokenExpiredError('not made by this server')
      }
      // Signed by us, so well formed; parsed strictly all the same.
      const match =
        /^(s?)(\d{1,15})-([0-9a-z]{1,7})(?:\.([a-z])(\d{1,16}))?\.([0-9a-z]{1,9})$/.exec(payload)
      const kind = match?.[4] === undefined ? undefined : KIND_OF[match[4]]
      if (!match || (match[4] !== undefined && !kind)) throw new CalSyncTokenExpiredError('garbage')
      const position: FeedPosition = { revision: Number(match[2]) }
      if (kind) position.after = { kind, id: Number(match[5]) }
      if (match[1]) position.initial = true
      return {
        position,
        stamp: Number.parseInt(match[3] as string, 36),
        issued: new Date(Number.parseInt(match[6] as string, 36) * 1000),
      }
    },
  }
}

export type FeedTokens = ReturnType<typeof feedTokens>
