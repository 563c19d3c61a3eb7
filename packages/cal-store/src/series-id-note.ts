import { sql } from 'kysely'
import type { CalDb } from './store-context.js'

/**
 * Notes, in the open transaction `trx`, series `seriesId` in the changes feed as it is now (its
 * own status before and after). The edit of a series' first occurrence goes by the series' id
 * (`series-ids.ts`), so its row's insert or delete alone would make the feed and the webhooks
 * report that id created or deleted while it answers all along (issue 47). Noted just before
 * the insert (the feed's fold takes a record's first status in a revision) or just after the
 * delete (its last), the id's net change is `updated`.
 */
export async function noteSeriesId(trx: CalDb, seriesId: number): Promise<void> {
  await sql`
    insert into cal_change (xid, kind, record_id, before_status, after_status, modified)
    select pg_current_xact_id()::text, 'event', id, status, status, modified
    from cal_event where id = ${seriesId}`.execute(trx)
}
