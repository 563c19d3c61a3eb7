import { type Kysely, sql } from 'kysely'
import type { KcoreSchema } from './schema.js'

/** The channel `kcore_revision` notifies on every change (migration 0004). */
export const KCORE_REVISION_CHANNEL = 'kcore_revision'

/** Bumps the data revision; call it inside the transaction that changes stored data, last. */
export async function bumpRevision(trx: Kysely<KcoreSchema>): Promise<void> {
  await sql`update kcore_revision set revision = revision + 1`.execute(trx)
}

/** The stored data revision and the number of snapshots stored at it. */
export interface RevisionState {
  /** A decimal string: every change of stored data moves it ({@link bumpRevision}). */
  revision: string
  snapshots: number
}

/**
 * The revision and the snapshot count as one text (`"revision count"`): what
 * {@link queryRevisionState} reads and what the revision's notification carries (migration
 * 0011), evaluated after the statement that bumped it.
 */
export const REVISION_PAYLOAD = sql<string>`(select r.revision::text || ' ' ||
  (select count(*) from kcore_snapshot)::text from kcore_revision r)`

/** {@link REVISION_PAYLOAD}'s text as a {@link RevisionState}; undefined when it is none. */
export function parseRevisionState(text: string): RevisionState | undefined {
  const match = /^(\d+) (\d+)$/.exec(text)
  return match ? { revision: match[1]!, snapshots: Number(match[2]) } : undefined
}

/** The committed revision and snapshot count, from one statement (so they agree). */
export async function queryRevisionState(db: Kysely<KcoreSchema>): Promise<RevisionState> {
  const { rows } = await sql<{ state: string }>`select ${REVISION_PAYLOAD} as state`.execute(db)
  const state = parseRevisionState(rows[0]?.state ?? '')
  if (!state) throw new Error(`unreadable kcore revision: ${JSON.stringify(rows[0]?.state)}`)
  return state
}
