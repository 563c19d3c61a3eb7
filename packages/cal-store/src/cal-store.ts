import type { DialectName, LockResult } from '@kcore/db'
import type {
  EventRepository,
  OrganizerRepository,
  TermRepository,
  VenueRepository,
} from './repositories.js'

/** The calendar store: migrations plus one repository per record kind. */
export interface CalStore {
  /** The engine behind the store (the caller owns the database and closes it). */
  readonly dialect: DialectName
  /** True when the database answers a trivial query (health checks). */
  ping(): Promise<boolean>
  /**
   * Runs `fn` holding the named lock of the database, or `{ acquired: false }` at once when
   * another holder (any process) has it; `seedDemoCalendar` holds `cal:seed` this way.
   */
  tryWithLock<T>(name: string, fn: () => Promise<T>): Promise<LockResult<T>>
  /** Runs pending migrations (own table `cal_migration`); idempotent, safe concurrently. */
  migrate(): Promise<void>
  /** True when there is no event, venue, organizer or term at all (any status). */
  isEmpty(): Promise<boolean>
  readonly events: EventRepository
  readonly venues: VenueRepository
  readonly organizers: OrganizerRepository
  /** Taxonomy `cal_event_category` (hierarchical). */
  readonly categories: TermRepository
  /** Taxonomy `cal_event_tag` (flat). */
  readonly tags: TermRepository
  /**
   * The data revision (`cal_revision`): changes when any committed transaction, in any process,
   * touched a calendar row. Opaque decimal string; one single-row read.
   */
  revision(): Promise<string>
}
