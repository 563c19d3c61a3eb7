import type {
  ExpressionBuilder,
  Insertable,
  Selectable,
  SelectQueryBuilder,
  Updateable,
} from 'kysely'
import type { NamedRecord, NamedRecordInput, PatchOf } from './named-record.js'
import type { CalSchema, EventTable, OrganizerTable, VenueTable } from './schema.js'
import type { CalDb } from './store-context.js'

/** Every key of a row type, spelled out: one missing from `shape` does not compile. */
export function columnsOf<R>(shape: Record<keyof R, true>): (keyof R & string)[] {
  return Object.keys(shape) as (keyof R & string)[]
}

/** The columns of {@link NamedRecord}, which venues and organizers both have. */
export const NAMED_RECORD_COLUMNS = {
  id: true,
  author: true,
  status: true,
  created: true,
  modified: true,
  name: true,
  slug: true,
  description: true,
  image: true,
  phone: true,
  website: true,
} as const satisfies Record<keyof NamedRecord, true>

/** Tables of records with a name, a slug, a status and an author: venues and organizers. */
export type NamedTable = 'cal_venue' | 'cal_organizer'

/** A stored row of `T`: the record itself (venues and organizers are their rows). */
export type Row<T extends NamedTable> = Selectable<CalSchema[T]>

/** A stored row of either table, as the shared queries see it. */
export type AnyRow = Selectable<VenueTable> | Selectable<OrganizerTable>

/**
 * `spec`'s columns as either table's: Kysely types only the columns the two tables share, so
 * the rows read with these are the record of `T` (see `asRecord`).
 */
export const columnsIn = (spec: { columns: readonly string[] }) =>
  spec.columns as readonly (keyof AnyRow & string)[]

/** Column changes of an update of either table. */
export type NamedChanges = Updateable<VenueTable & OrganizerTable>

/** The listed row, aliased `v` in list queries (every column of either table). */
export type ListedRow = Selectable<VenueTable> & Selectable<OrganizerTable>

/** The optional (nullable) text columns of either table. */
export type TextColumn = {
  [K in keyof ListedRow]: ListedRow[K] extends string | null
    ? null extends ListedRow[K]
      ? K
      : never
    : never
}[keyof ListedRow]

/** Where venues and organizers differ; the rest of their repositories is the same code. */
export interface NamedRecordSpec<
  T extends NamedTable,
  I extends NamedRecordInput,
  P extends PatchOf<I>,
> {
  table: T
  /**
   * Every column of the table, named in each query instead of `*`: a column another process's
   * migration adds then changes no prepared statement's result (see `@kcore/db`).
   */
  columns: readonly (keyof Row<T> & string)[]
  kind: 'venue' | 'organizer'
  /** How a validation message names one: `a venue`. */
  what: string
  /** Optional text columns: `''` is stored as `null`. */
  textFields: readonly (TextColumn & keyof I)[]
  /** Columns every `search` word is matched against (ILIKE, any of them). */
  searched: readonly ('name' | TextColumn)[]
  /** Checks and values of the table's own other columns, on create. */
  insertValues?(input: I): Partial<Insertable<CalSchema[T]>>
  /** Checks and changes of the table's own other columns, on update. */
  patchChanges?(patch: P, changes: NamedChanges): void
  /** Ids of the records event `event` names (list filter `event`). */
  ofEvent(
    db: CalDb,
    event: number,
  ): SelectQueryBuilder<CalSchema, keyof CalSchema, Record<string, number | null>>
  /** Events (any status, as `e`, selecting `e.id`) naming the listed record `v`. */
  eventsOf(
    eb: ExpressionBuilder<CalSchema & { v: ListedRow }, 'v'>,
  ): SelectQueryBuilder<CalSchema & { e: EventTable }, 'e', { id: number }>
  /** Ids (as `event_id`) of the events linking record `id`. */
  linkedEvents(
    db: CalDb,
    id: number,
  ): SelectQueryBuilder<CalSchema, keyof CalSchema, { event_id: number }>
  /** Removes every event's link to record `id` (on trash: events render without it). */
  unlink(trx: CalDb, id: number): Promise<void>
}
