import { sql } from 'kysely'
import type { EventRow } from './event-rows.js'
import { firstKey, seriesRecurrence } from './occurrence-read.js'
import { noteRemovedOccurrences } from './removed-occurrences.js'
import type { CalDb } from './store-context.js'

/**
 * Notes, in the open transaction `trx`, series `seriesId` in the changes feed as it is now (its
 * own status before and after). The edit of a series' first occurrence goes by the series' id
 * (`series-ids.ts`), so deleting its row (a rule change, `recurrence: null`) would alone make
 * the feed and the webhooks report that id deleted while it answers all along (issue 47).
 * Noted just after the delete (the feed's fold takes a record's last status in a revision), the
 * id's net change is `updated`.
 */
export async function noteSeriesId(trx: CalDb, seriesId: number): Promise<void> {
  await sql`
    insert into cal_change (xid, kind, record_id, before_status, after_status, modified)
    select pg_current_xact_id()::text, 'event', id, status, status, modified
    from cal_event where id = ${seriesId}`.execute(trx)
}

/**
 * After a write on a series whose first occurrence was deleted (its `before` row, locked),
 * notes the series' id deleted again if that occurrence still is. The series row's own update
 * is noted under its id as `updated`, which would fold with the earlier deletion into
 * `updated` for a follower that reads both at once: the id would never be reported gone
 * (issue 47). A series trashed by the write is noted by its row.
 */
export async function noteFirstStillDeleted(trx: CalDb, before: EventRow): Promise<void> {
  if (before.recurrence === null || seriesRecurrence(before).byKey(firstKey(before))) return
  const row = await trx
    .selectFrom('cal_event')
    .select(['id', 'status', 'recurrence', 'start_utc', 'end_utc', 'timezone', 'all_day'])
    .where('id', '=', before.id)
    .executeTakeFirst()
  if (!row || row.recurrence === null || row.status === 'trash') return
  if (seriesRecurrence(row).byKey(firstKey(row))) return
  await noteRemovedOccurrences(trx, [row.id], row.status)
}
