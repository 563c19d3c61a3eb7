import { type Kysely, sql } from 'kysely'
import type { KcoreSchema } from './schema.js'

/** The channel `kcore_revision` notifies on every change (migration 0004). */
export const KCORE_REVISION_CHANNEL = 'kcore_revision'

/** Bumps the data revision; call it inside the transaction that changes stored data. */
export async function bumpRevision(trx: Kysely<KcoreSchema>): Promise<void> {
  await sql`update kcore_revision set revision = revision + 1`.execute(trx)
}

/** The committed data revision, as a decimal string (one primary-key row read). */
export async function queryKcoreRevision(db: Kysely<KcoreSchema>): Promise<string> {
  const row = await db.selectFrom('kcore_revision').select('revision').executeTakeFirstOrThrow()
  return String(row.revision)
}
