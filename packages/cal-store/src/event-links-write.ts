import { sql } from 'kysely'
import { CalUnknownReferenceError, CalValidationError } from './errors.js'
import type { OrganizerRef, VenueRef } from './event.js'
import { idIn, validIds } from './id-list.js'
import { findOrInsertOrganizers, lockOrganizerNames } from './organizer-repository.js'
import type { CalDb } from './store-context.js'
import { findOrInsertVenue } from './venue-repository.js'

/**
 * Checks that the venues or organizers `ids` exist and are not trashed, and holds them `FOR
 * SHARE` (in id order) until commit: a concurrent trash (an UPDATE) waits for this write and
 * then unlinks what it linked, or ran first and this write sees the trash (400, the serial
 * order's answer). Checked without the lock, a trash could land between check and link.
 */
async function lockLiveRecords(
  trx: CalDb,
  table: 'cal_venue' | 'cal_organizer',
  field: string,
  ids: readonly number[],
): Promise<void> {
  const wanted = validIds(ids)
  const rows = wanted.length
    ? await trx
        .selectFrom(table)
        .select('id')
        .where(idIn('id', wanted))
        .where('status', '<>', 'trash')
        .orderBy('id')
        .forShare()
        .execute()
    : []
  const live = new Set(rows.map((r) => r.id))
  const missing = ids.find((id) => !live.has(id))
  if (missing !== undefined) throw new CalUnknownReferenceError(field, missing)
}

export async function resolveVenue(trx: CalDb, now: Date, ref: VenueRef): Promise<number> {
  if (typeof ref === 'number') {
    await lockLiveRecords(trx, 'cal_venue', 'venue', [ref])
    return ref
  }
  return findOrInsertVenue(trx, now, ref)
}

export async function resolveOrganizers(
  trx: CalDb,
  now: Date,
  refs: readonly OrganizerRef[],
): Promise<number[]> {
  const inline = refs.filter((ref) => typeof ref !== 'number')
  // All name locks first, in one order: writers naming [A, B] and [B, A] would deadlock.
  await lockOrganizerNames(trx, inline)
  await lockLiveRecords(
    trx,
    'cal_organizer',
    'organizer',
    refs.filter((ref) => typeof ref === 'number'),
  )
  const made = await findOrInsertOrganizers(trx, now, inline)
  let next = 0
  const ids = refs.map((ref) => (typeof ref === 'number' ? ref : (made[next++] as number)))
  return [...new Set(ids)]
}

export async function checkParentEvent(trx: CalDb, parent: number, self?: number): Promise<void> {
  if (parent === self)
    throw new CalValidationError('post_parent', 'an event cannot be its own parent')
  const found = validIds([parent]).length
    ? await trx.selectFrom('cal_event').select('id').where('id', '=', parent).executeTakeFirst()
    : undefined
  if (!found) throw new CalUnknownReferenceError('post_parent', parent)
}

export async function writeRelations(
  trx: CalDb,
  id: number,
  relations: { organizers?: number[]; categories?: number[]; tags?: number[] },
  replace: boolean,
): Promise<void> {
  if (relations.organizers) {
    if (replace) await trx.deleteFrom('cal_event_organizer').where('event_id', '=', id).execute()
    if (relations.organizers.length > 0) {
      // One array parameter however many: a list of values stops at 65,535 parameters.
      await sql`insert into cal_event_organizer (event_id, organizer_id, position)
        select ${id}::integer, o.id, o.n - 1
        from unnest(${relations.organizers}::integer[]) with ordinality as o(id, n)`.execute(trx)
    }
  }
  for (const [taxonomy, terms] of [
    ['cal_event_category', relations.categories],
    ['cal_event_tag', relations.tags],
  ] as const) {
    if (!terms) continue
    if (replace) {
      await trx
        .deleteFrom('cal_event_term')
        .where('event_id', '=', id)
        .where('term_id', 'in', (eb) =>
          eb.selectFrom('cal_term').select('id').where('taxonomy', '=', taxonomy),
        )
        .execute()
    }
    if (terms.length > 0) {
      await sql`insert into cal_event_term (event_id, term_id)
        select ${id}::integer, unnest(${terms}::integer[])`.execute(trx)
    }
  }
}
