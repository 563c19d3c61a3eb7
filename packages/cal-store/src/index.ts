/**
 * `@cal/store`: storage and querying for the calendar API (events, venues, organizers,
 * categories, tags) on PostgreSQL or PGlite through Kysely.
 *
 * @example
 * const store = createCalStore(await openDatabase({ ... }))
 * await store.migrate()
 * const venue = await store.venues.create({ name: 'Town Hall', geo_lat: 52.37, geo_lng: 4.89 })
 * await store.events.create({ title: 'Concert', start, end, timezone: 'Europe/Amsterdam', venue: venue.id })
 */

export { isValidTimeZone, type RecurrenceInput } from '@cal/recurrence'
export { allDayBounds } from './all-day.js'
export type { CalReader, CalStore } from './cal-store.js'
export {
  type ChangesPage,
  type ChangesQuery,
  type ChangesView,
  DEFAULT_CHANGES_PAGE,
  type FeedChange,
  MAX_CHANGES_PAGE,
} from './changes.js'
export { CalSyncTokenExpiredError } from './changes-token.js'
export type { CommittedChange, CommittedChanges } from './committed-changes.js'
export { type CalStoreOptions, createCalStore } from './create-cal-store.js'
export {
  assertDateInRange,
  BEFORE_ANY_DATE,
  DATE_RANGE_MESSAGE,
  isDateInRange,
  isWallTimeInRange,
  MAX_YEAR,
  MIN_YEAR,
} from './date-range.js'
export {
  CalInTrashError,
  CalNotFoundError,
  CalStaleReadError,
  CalStoreError,
  CalTermExistsError,
  CalUnknownReferenceError,
  CalValidationError,
} from './errors.js'
export type {
  CalEvent,
  Cost,
  EventInput,
  EventListFilter,
  EventPatch,
  GeoFilter,
  OrganizerRef,
  SeriesScope,
  TermRef,
  VenueRef,
} from './event.js'
export { EVENT_FLAGS } from './event.js'
export { eventTimes } from './event-input-check.js'
export { checkEventLinks, type EventLinks, MAX_EVENT_LINKS } from './event-links.js'
export type { EventRelations } from './event-relations.js'
export { MAX_NAME_LENGTH, rejectNul } from './input-guard.js'
export type { ModifiedFilter } from './modified-filter.js'
export type {
  Organizer,
  OrganizerInput,
  OrganizerListFilter,
  OrganizerPatch,
} from './organizer.js'
export type { ListResult, Page } from './page.js'
export {
  CAL_CHANGE_TYPES,
  type CalChange,
  type CalChangeAction,
  type CalChangeRecords,
} from './record-change.js'
export type {
  EventRepository,
  OrganizerRepository,
  TermRepository,
  VenueRepository,
} from './repositories.js'
export { type SeedDemoOptions, seedDemoCalendar } from './seed-demo-calendar.js'
export { decodeOccurrenceId, isEventId, KEY_SPACE } from './series-ids.js'
export { compileGiven as checkRecurrence } from './series-recurrence.js'
export { POST_STATUSES, type PostStatus, type RecordKind } from './status.js'
export type { Taxonomy, Term, TermInput, TermListFilter, TermOrderBy, TermPatch } from './term.js'
export {
  addDays,
  assertTimeZone,
  endOfDayInstant,
  formatLocalDateTime,
  formatWallTime,
  fromLocalDateTime,
  isRealWallTime,
  type LocalDateTime,
  startOfDayInstant,
  toLocalDateTime,
  zoneOffsetMinutes,
} from './time-zone.js'
export { timezoneAbbreviation } from './time-zone-abbreviation.js'
export type { Venue, VenueInput, VenueListFilter, VenuePatch } from './venue.js'
