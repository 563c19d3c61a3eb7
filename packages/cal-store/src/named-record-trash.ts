import type { NamedRecordInput, PatchOf } from './named-record.js'
import {
  type AnyRow,
  columnsIn,
  type NamedChanges,
  type NamedRecordSpec,
  type NamedTable,
} from './named-record-spec.js'
import type { CalDb } from './store-context.js'

/**
 * Locks (`FOR UPDATE`, id order) the events linking record `id`, before the record itself;
 * returns their ids.
 */
export async function lockLinkedEvents<
  T extends NamedTable,
  I extends NamedRecordInput,
  P extends PatchOf<I>,
>(trx: CalDb, spec: NamedRecordSpec<T, I, P>, id: number): Promise<number[]> {
  const rows = await trx
    .selectFrom('cal_event')
    .select('id')
    .where('id', 'in', spec.linkedEvents(trx, id))
    .orderBy('id')
    .forUpdate()
    .execute()
  return rows.map((r) => r.id)
}

/**
 * Trashes record `id` inside `trx` when it is not trashed yet (one conditional UPDATE decides,
 * so of concurrent trashes one wins) and unlinks it from every event: the spec's "events
 * render without it" and "`?venue=` matches nothing" then hold in the data itself, for every
 * reader. The linked events are locked first, in id order: event writes lock their event row
 * before the records they name, so taking the record first would deadlock with them. Returns
 * the trashed row, or `undefined` when there was nothing to trash.
 */
export async function trashAndUnlink<
  T extends NamedTable,
  I extends NamedRecordInput,
  P extends PatchOf<I>,
>(
  trx: CalDb,
  spec: NamedRecordSpec<T, I, P>,
  id: number,
  changes: NamedChanges,
): Promise<AnyRow | undefined> {
  await lockLinkedEvents(trx, spec, id)
  const row = await trx
    .updateTable(spec.table as NamedTable)
    .set({ ...changes, status: 'trash' })
    .where('id', '=', id)
    .where('status', '<>', 'trash')
    .returning(columnsIn(spec))
    .executeTakeFirst()
  if (row) {
    await spec.unlink(trx, id)
  }
  return row as AnyRow | undefined
}
