import type { DialectName, LockResult, Sized } from '@kcore/db'
import type { Kysely } from 'kysely'
import type { ChangesPage, ChangesQuery } from './changes.js'
import type { CommittedChanges } from './committed-changes.js'
import type { CalEvent, EventListFilter } from './event.js'
import type { EventRelations } from './event-relations.js'
import type { ListResult } from './page.js'
import type { CalChangeRecords } from './record-change.js'
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
  /** The venues, organizers, categories and tags `events` link to, read in one statement. */
  relations(events: readonly CalEvent[]): Promise<EventRelations>
  /**
   * A reader at the committed data revision, read once here (concurrent callers share the round
   * trip; none on PGlite while nothing is written). `events.list` is the same as a reader's.
   */
  reader(): Promise<CalReader>
  /**
   * What was committed after revision `after`, whole revisions, the first `revisions` of them,
   * one entry per record and revision (see `readCommittedChanges`). With `trx` (a follower's
   * own transaction, which may hold its cursor) the changes and the `records` reads run in it.
   * How a webhook sender follows the calendar after the commit, with nothing added to writes.
   */
  committedChanges<DB>(
    after: number,
    revisions: number,
    trx?: Kysely<DB>,
  ): Promise<CommittedChanges & { records: CalChangeRecords }>
}

/**
 * Reads of a {@link CalStore} at one data revision (`cal_revision`: moved by every committed
 * transaction, in any process, that touched a calendar row). Holds no connection.
 */
export interface CalReader {
  /** The revision, an opaque decimal string; equal revisions mean equal stored data. */
  readonly revision: string
  /**
   * Events matching the filter, read in one snapshot at least as new as {@link revision} (a
   * read-only REPEATABLE READ transaction): from the in-memory list model when it is at exactly
   * the snapshot's revision (it catches up through the snapshot when behind) and serves the
   * filter, else from SQL in the snapshot. {@link syncToken} then stands at that revision.
   */
  readonly events: Pick<EventRepository, 'list'> & {
    /**
     * A list as `list` gives it and `read`'s reads of its page (`records`: events, venues,
     * organizers and terms by id, a page's relations), in the same snapshot: a page and the
     * relations it is rendered with are of one revision, the one {@link syncToken} then
     * stands at.
     */
    listWith<T>(
      filter: EventListFilter,
      read: (page: ListResult<CalEvent>, records: CalChangeRecords) => Promise<T>,
    ): Promise<T>
  }
  /**
   * Venues, organizers, categories and tags, each list read in one snapshot as
   * {@link events}' lists are (so {@link syncToken} after one stands at its revision).
   */
  readonly venues: Pick<VenueRepository, 'list'>
  readonly organizers: Pick<OrganizerRepository, 'list'>
  readonly categories: Pick<TermRepository, 'list'>
  readonly tags: Pick<TermRepository, 'list'>
  /**
   * The value of `key` at this reader's revision, computed once and kept (bounded, least
   * recently used first) for later readers at the same revision; a newer revision drops it.
   * `key` must say everything the value depends on besides the stored data.
   */
  memo<T extends Sized>(key: string, compute: () => Promise<T>): Promise<T>
  /**
   * The changes feed's token at the revision of the snapshot this reader's last list was
   * read in ({@link revision} before any): the list shows every change up to it and none after,
   * so following {@link changes} from it misses nothing the list did not show and repeats
   * nothing it showed. Signed with the database's secret.
   */
  syncToken(): Promise<string>
  /**
   * The changes after the token `since` up to {@link revision}, oldest first, seen from
   * `view`; without `since`, a full sync (every record as `created`, by key, then the changes
   * after its first page's revision). Throws `CalSyncTokenExpiredError` when the token is not
   * this database's, older than the retention or its changes are no longer kept,
   * `CalValidationError` (field `limit`) for a bad limit.
   */
  changes(query: ChangesQuery): Promise<ChangesPage>
}
