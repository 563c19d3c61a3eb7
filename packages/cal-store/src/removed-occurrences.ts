import { sql } from 'kysely'
import type { PostStatus } from './status.js'
import type { CalDb } from './store-context.js'

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
