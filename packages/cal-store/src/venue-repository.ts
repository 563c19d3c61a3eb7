import { CalValidationError } from './errors.js'
import { findOrInsertNamed } from './named-record-insert.js'
import { createNamedRecordRepository } from './named-record-repository.js'
import { columnsOf, NAMED_RECORD_COLUMNS, type NamedRecordSpec } from './named-record-spec.js'
import type { VenueRepository } from './repositories.js'
import type { CalDb, StoreContext } from './store-context.js'
import type { Venue, VenueInput, VenueListFilter, VenuePatch } from './venue.js'

function checkCoordinates(lat: number | null | undefined, lng: number | null | undefined): void {
  if (lat !== undefined && lat !== null && !(Number.isFinite(lat) && Math.abs(lat) <= 90)) {
    throw new CalValidationError('geo_lat', 'must be a latitude between -90 and 90')
  }
  if (lng !== undefined && lng !== null && !(Number.isFinite(lng) && Math.abs(lng) <= 180)) {
    throw new CalValidationError('geo_lng', 'must be a longitude between -180 and 180')
  }
}

/** Every column of a venue's row: the record's fields. */
export const VENUE_COLUMNS = columnsOf<Venue>({
  ...NAMED_RECORD_COLUMNS,
  show_map: true,
  show_map_link: true,
  address: true,
  city: true,
  country: true,
  province: true,
  state: true,
  zip: true,
  geo_lat: true,
  geo_lng: true,
})

const VENUES: NamedRecordSpec<'cal_venue', VenueInput, VenuePatch> = {
  table: 'cal_venue',
  columns: VENUE_COLUMNS,
  kind: 'venue',
  what: 'a venue',
  textFields: [
    'description',
    'image',
    'address',
    'city',
    'country',
    'province',
    'state',
    'zip',
    'phone',
    'website',
  ],
  searched: ['name', 'description', 'address', 'city', 'country', 'province', 'state', 'zip'],
  insertValues(input) {
    checkCoordinates(input.geo_lat, input.geo_lng)
    return {
      show_map: input.show_map ?? false,
      show_map_link: input.show_map_link ?? false,
      geo_lat: input.geo_lat ?? null,
      geo_lng: input.geo_lng ?? null,
    }
  },
  patchChanges(patch, changes) {
    if (patch.show_map !== undefined) changes.show_map = patch.show_map ?? false
    if (patch.show_map_link !== undefined) changes.show_map_link = patch.show_map_link ?? false
    checkCoordinates(patch.geo_lat, patch.geo_lng)
    if (patch.geo_lat !== undefined) changes.geo_lat = patch.geo_lat
    if (patch.geo_lng !== undefined) changes.geo_lng = patch.geo_lng
  },
  ofEvent: (db, event) => db.selectFrom('cal_event').select('venue_id').where('id', '=', event),
  eventsOf: (eb) =>
    eb.selectFrom('cal_event as e').select('e.id').whereRef('e.venue_id', '=', 'v.id'),
  linkedEvents: (db, id) =>
    db.selectFrom('cal_event').select('id as event_id').where('venue_id', '=', id),
  async unlink(trx, id) {
    await trx.updateTable('cal_event').set({ venue_id: null }).where('venue_id', '=', id).execute()
  },
}

/**
 * The venue named `name` (case-insensitive, not trashed, lowest id) or a new one made from
 * `input`: how inline venue objects on event writes resolve.
 */
export function findOrInsertVenue(trx: CalDb, now: Date, input: VenueInput): Promise<number> {
  return findOrInsertNamed(trx, now, VENUES, input)
}

/** The venue repository over `ctx`. */
export function createVenueRepository(ctx: StoreContext): VenueRepository {
  return createNamedRecordRepository<'cal_venue', VenueInput, VenuePatch, VenueListFilter>(
    ctx,
    VENUES,
  )
}
