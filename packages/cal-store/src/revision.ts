import type { CalDb } from './store-context.js'

/** The channel `cal_revision` notifies on every change (migration 0012). */
export const REVISION_CHANNEL = 'cal_revision'

/**
 * The committed data revision `cal_revision.n` (one single-row read): moved by every
 * transaction that changes a calendar table (migration 0007).
 */
export async function queryRevision(db: CalDb): Promise<number> {
  const row = await db.selectFrom('cal_revision').select('n').executeTakeFirstOrThrow()
  return Number(row.n)
}
