import { sql } from 'kysely'
import { fold } from './changes.js'
import type { CalChange } from './record-change.js'
import type { PostStatus, RecordKind } from './status.js'
import type { CalDb } from './store-context.js'

/**
 * What the open transaction `trx` has changed so far, one entry per record: the rows the
 * changes feed's triggers wrote for it (migration 0013), not filed under a revision yet, folded
 * as the feed folds them for a token holder. A record created, or made visible again, is
 * `created`; trashed or deleted, `deleted`; otherwise `updated`; one made and deleted in the
 * same transaction is left out. The webhooks and the feed therefore tell one story, from one
 * source, whichever statement (or side effect: a venue's trash unlinking its events) wrote it.
 */
export async function transactionChanges(trx: CalDb): Promise<CalChange[]> {
  const { rows } = await sql<{
    kind: RecordKind
    record_id: number
    before_status: PostStatus | null
    after_status: PostStatus | null
    modified: Date
  }>`
    select kind, record_id, before_status, after_status, modified from cal_change
    where xid = pg_current_xact_id()::text and revision is null
    order by seq`.execute(trx)
  return fold(rows, 'all').map(({ kind, id, action }) => ({ kind, id, action }))
}

/**
 * Notes, in the open transaction `trx`, that the occurrences `ids` of a series in `status` are
 * gone (an exception date, a series cut short): they have no row whose trigger could say so.
 * The feed and the webhooks then report each as `deleted`.
 */
export async function noteRemovedOccurrences(
  trx: CalDb,
  ids: readonly number[],
  status: PostStatus,
): Promise<void> {
  if (ids.length === 0) return
  await sql`
    insert into cal_change (xid, kind, record_id, before_status, after_status, modified)
    select pg_current_xact_id()::text, 'event', id, ${status}, null, now()
    from unnest(${ids.map(String)}::bigint[]) as t(id)`.execute(trx)
}
