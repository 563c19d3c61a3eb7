import { sql } from 'kysely'
import {
  CalSyncTokenExpiredError,
  type FeedPosition,
  type FeedToken,
  type FeedTokens,
} from './changes-token.js'
import type { CalDb } from './store-context.js'

/** A feed position signed into a token, with its revision's stamp. */
export type SignPosition = (position: FeedPosition, issued: Date) => Promise<string>

/** The stamp of `revision` in this database's history (0017); `undefined` if it has none. */
async function queryStamp(db: CalDb, revision: number): Promise<number | undefined> {
  const { rows } = await sql<{ stamp: number }>`
    select stamp from cal_revision_stamp where revision = ${revision}`.execute(db)
  return rows[0]?.stamp
}

/**
 * Signs positions with the stamp of their revision. A revision has one once committed and keeps
 * it while its changes are kept; one without (trimmed meanwhile) signs as 0, which no revision
 * has: the token is refused and the client lists again, as it would for an expired one.
 */
export function positionSigner(db: CalDb, tokens: FeedTokens): SignPosition {
  return async (position, issued) =>
    tokens.encode(position, (await queryStamp(db, position.revision)) ?? 0, issued)
}

/**
 * Refuses a token whose revision this database's history does not have with that stamp: one
 * from a later revision than it has (a restore of an older backup, a failover to a replica
 * behind) and one of a history that went another way after the copy (the restored database's
 * own writes since, numbered as the original's were). Its writes since the token would be
 * skipped: the client must list again.
 */
export async function checkTokenHistory(db: CalDb, token: FeedToken): Promise<void> {
  const stamp = await queryStamp(db, token.position.revision)
  if (stamp === undefined || stamp !== token.stamp) {
    throw new CalSyncTokenExpiredError(
      'it is of a history this database does not have (restored from a backup, or a replica behind)',
    )
  }
}
