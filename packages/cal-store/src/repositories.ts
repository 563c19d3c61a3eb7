import type { CalEvent, EventInput, EventListFilter, EventPatch, SeriesScope } from './event.js'
import type { Organizer, OrganizerInput, OrganizerListFilter, OrganizerPatch } from './organizer.js'
import type { ListResult } from './page.js'
import type { Taxonomy, Term, TermInput, TermListFilter, TermPatch } from './term.js'
import type { Venue, VenueInput, VenueListFilter, VenuePatch } from './venue.js'

/**
 * Events. Every write is one transaction. Errors: `CalNotFoundError`, `CalInTrashError`,
 * `CalUnknownReferenceError` (venue, organizers, categories, tags, post_parent),
 * `CalValidationError` (end before start, bad time zone, empty title).
 */
export interface EventRepository {
  /** Creates an event (and any inline venue/organizers/terms it names) and returns it. */
  create(input: EventInput): Promise<CalEvent>
  /**
   * Bulk path for seeding and benchmarks: creates many events in ONE transaction with
   * multi-row inserts (chunked), slugs made unique in bulk. Relations must be ids (numbers);
   * inline objects and term names are rejected with `CalValidationError`. Returns the new ids
   * in input order. Takes a table lock on events, so concurrent writers wait.
   */
  createMany(inputs: EventInput[]): Promise<number[]>
  /**
   * Partial update (absent unchanged, `null` clears); returns the updated event. With
   * `ifSequence`, the update applies only if the event's `sequence` is still that (the patch was
   * computed from that read, e.g. wall times read in its zone); else `CalStaleReadError` and
   * nothing is written. The check runs under the row lock, so no write can slip in between.
   * On an occurrence (a series' id names its first), `scope` says which occurrences change
   * (default `this`, or `all` when the patch has `recurrence`); a change of the rule answers
   * the occurrence ids of the overrides it dropped as `dropped_overrides`.
   */
  update(
    id: number,
    patch: EventPatch,
    options?: { ifSequence?: number; scope?: SeriesScope },
  ): Promise<CalEvent & { dropped_overrides?: number[] }>
  /**
   * Sets status `trash` and returns the event. Already trashed → `CalInTrashError`. On an
   * occurrence, `scope` says which go (see {@link SeriesScope}; default `this`: an exception
   * date of the series, answered as the occurrence was with status `trash`).
   */
  trash(id: number, options?: { scope?: SeriesScope }): Promise<CalEvent>
  /**
   * The event with this id, in any status (trash included), or `undefined`: a single event, a
   * series (its first occurrence) or any occurrence of one by its id (`series-ids.ts`).
   */
  get(id: number): Promise<CalEvent | undefined>
  /** The event with this slug, in any status, or `undefined`. */
  getBySlug(slug: string): Promise<CalEvent | undefined>
  /** The events with these ids (missing ones skipped), in the order of `ids`. */
  getMany(ids: readonly number[]): Promise<CalEvent[]>
  /** One page of events matching every filter, plus the total. */
  list(filter?: EventListFilter): Promise<ListResult<CalEvent>>
  /**
   * True when `password` is the event's password (constant-time compare of scrypt hashes);
   * also true when the event has no password. False for an unknown event.
   */
  verifyPassword(id: number, password: string): Promise<boolean>
}

/** Venues. `trash` sets status `trash`; events keep pointing at a trashed venue. */
export interface VenueRepository {
  create(input: VenueInput): Promise<Venue>
  update(id: number, patch: VenuePatch): Promise<Venue>
  /** Sets status `trash`; already trashed → `CalInTrashError`; unknown → `CalNotFoundError`. */
  trash(id: number): Promise<Venue>
  /** Any status (trash included), or `undefined`. */
  get(id: number): Promise<Venue | undefined>
  getBySlug(slug: string): Promise<Venue | undefined>
  /** In the order of `ids`, missing ones skipped. */
  getMany(ids: readonly number[]): Promise<Venue[]>
  list(filter?: VenueListFilter): Promise<ListResult<Venue>>
}

/** Organizers; same contract as {@link VenueRepository}. */
export interface OrganizerRepository {
  create(input: OrganizerInput): Promise<Organizer>
  update(id: number, patch: OrganizerPatch): Promise<Organizer>
  trash(id: number): Promise<Organizer>
  get(id: number): Promise<Organizer | undefined>
  getBySlug(slug: string): Promise<Organizer | undefined>
  getMany(ids: readonly number[]): Promise<Organizer[]>
  list(filter?: OrganizerListFilter): Promise<ListResult<Organizer>>
}

/**
 * Categories or tags (one repository per taxonomy). A name already used by a sibling (same
 * parent, case-insensitive) → `CalTermExistsError` carrying the existing id. Tags have no parent
 * (`parent` given on a tag → `CalValidationError`).
 */
export interface TermRepository {
  readonly taxonomy: Taxonomy
  create(input: TermInput): Promise<Term>
  update(id: number, patch: TermPatch): Promise<Term>
  /**
   * Deletes permanently, removing the term from every event; children move up to the deleted
   * term's parent. Returns the term as it was. Unknown → `CalNotFoundError`.
   */
  delete(id: number): Promise<Term>
  get(id: number): Promise<Term | undefined>
  getBySlug(slug: string): Promise<Term | undefined>
  getMany(ids: readonly number[]): Promise<Term[]>
  list(filter?: TermListFilter): Promise<ListResult<Term>>
}
