import { findOrInsertNamedMany, lockNames } from './named-record-insert.js'
import { createNamedRecordRepository } from './named-record-repository.js'
import { columnsOf, NAMED_RECORD_COLUMNS, type NamedRecordSpec } from './named-record-spec.js'
import type { Organizer, OrganizerInput, OrganizerListFilter, OrganizerPatch } from './organizer.js'
import type { OrganizerRepository } from './repositories.js'
import type { CalDb, StoreContext } from './store-context.js'

/** Every column of an organizer's row: the record's fields. */
export const ORGANIZER_COLUMNS = columnsOf<Organizer>({ ...NAMED_RECORD_COLUMNS, email: true })

const ORGANIZERS: NamedRecordSpec<'cal_organizer', OrganizerInput, OrganizerPatch> = {
  table: 'cal_organizer',
  columns: ORGANIZER_COLUMNS,
  kind: 'organizer',
  what: 'an organizer',
  textFields: ['description', 'image', 'phone', 'website', 'email'],
  searched: ['name', 'description'],
  ofEvent: (db, event) =>
    db.selectFrom('cal_event_organizer').select('organizer_id').where('event_id', '=', event),
  eventsOf: (eb) =>
    eb
      .selectFrom('cal_event_organizer as eo')
      .innerJoin('cal_event as e', 'e.id', 'eo.event_id')
      .select('e.id')
      .whereRef('eo.organizer_id', '=', 'v.id'),
  linkedEvents: (db, id) =>
    db.selectFrom('cal_event_organizer').select('event_id').where('organizer_id', '=', id),
  async unlink(trx, id) {
    await trx.deleteFrom('cal_event_organizer').where('organizer_id', '=', id).execute()
  },
}

/**
 * For each of `inputs`, the organizer named like it (case-insensitive, not trashed, lowest id)
 * or a new one made from it: how inline organizer objects on event writes resolve, set-based;
 * ids in input order. Resolving them with other records in one transaction:
 * {@link lockOrganizerNames} first.
 */
export function findOrInsertOrganizers(
  trx: CalDb,
  now: Date,
  inputs: readonly OrganizerInput[],
): Promise<number[]> {
  return findOrInsertNamedMany(trx, now, ORGANIZERS, inputs)
}

/** Takes the locks of every organizer in `inputs` that {@link findOrInsertOrganizers} takes. */
export function lockOrganizerNames(trx: CalDb, inputs: readonly OrganizerInput[]): Promise<void> {
  return lockNames(trx, ORGANIZERS, inputs)
}

/** The organizer repository over `ctx`. */
export function createOrganizerRepository(ctx: StoreContext): OrganizerRepository {
  return createNamedRecordRepository<
    'cal_organizer',
    OrganizerInput,
    OrganizerPatch,
    OrganizerListFilter
  >(ctx, ORGANIZERS)
}
