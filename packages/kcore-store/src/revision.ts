import { type Kysely, sql } from 'kysely'
import type { KcoreSchema } from './schema.js'

/** Bumps the data revision; call it inside the transaction that changes stored data. */
export async function bumpRevision(trx: Kysely<KcoreSchema>): Promise<void> {
  await sql`update kcore_revision set revision = revision + 1`.execute(trx)
}

/** The committed data revision, as a decimal string (one primary-key row read). */
export async function queryRevision(db: Kysely<KcoreSchema>): Promise<string> {
  const row = await db.selectFrom('kcore_revision').select('revision').executeTakeFirstOrThrow()
  return String(row.revision)
}

/**
 * Shares revision reads between concurrent callers without ever answering older than the call:
 * a caller joins the next read that starts after it asked, never one already sent (that one may
 * have been answered before a commit the caller must see). So at most one read is in flight and
 * one waits, and N concurrent callers cost two round trips instead of N, each still seeing every
 * commit that finished before it asked.
 */
export function sharedReads<T>(read: () => Promise<T>): () => Promise<T> {
  let sent: Promise<T> | undefined
  let waiting: Promise<T> | undefined
  const send = () => {
    const current = read().finally(() => {
      if (sent === current) sent = undefined
    })
    sent = current
    return current
  }
  return () => {
    if (!sent) return send()
    waiting ??= sent
      .catch(() => {})
      .then(() => {
        waiting = undefined
        return send()
      })
    return waiting
  }
}
