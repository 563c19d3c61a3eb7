import { sql } from 'kysely'
import type { CalEvent } from './event.js'
import { validIds } from './id-list.js'
import type { Organizer } from './organizer.js'
import { ORGANIZER_COLUMNS } from './organizer-repository.js'
import type { CalDb } from './store-context.js'
import type { Term } from './term.js'
import { TERM_COLUMNS, type TermRow, toTerm } from './term-repository.js'
import type { Venue } from './venue.js'
import { VENUE_COLUMNS } from './venue-repository.js'

/** The venues, organizers and terms a set of events links to, by id. */
export interface EventRelations {
  venues: Map<number, Venue>
  organizers: Map<number, Organizer>
  /** Categories and tags (a term's id is unique across taxonomies). */
  terms: Map<number, Term>
}

/**
 * The tables of the relations, in the order of the statement's `kind.n`. Each row of the
 * statement is one record of one kind, its columns named `<alias>_<column>` (the other kinds'
 * columns null), so each column keeps its own type and the driver parses it as the
 * repositories' own reads do: a record here equals its `getMany` record (tested).
 */
const KINDS = [
  { alias: 'v', table: 'cal_venue', columns: VENUE_COLUMNS },
  { alias: 'o', table: 'cal_organizer', columns: ORGANIZER_COLUMNS },
  { alias: 't', table: 'cal_term', columns: TERM_COLUMNS },
] as const

const SELECTED = sql.join(
  KINDS.flatMap(({ alias, columns }) =>
    columns.map((c) => sql`${sql.ref(`${alias}.${c}`)} as ${sql.id(`${alias}_${c}`)}`),
  ),
)

/** One kind's columns of a statement row, under their own names. */
function pick(row: Record<string, unknown>, kind: (typeof KINDS)[number]) {
  const record: Record<string, unknown> = {}
  for (const c of kind.columns) record[c] = row[`${kind.alias}_${c}`]
  return record
}

/**
 * The relations of `events` in one statement: a page's venues, organizers, categories and
 * tags in one round trip (inside a read snapshot, four reads would run one after another on
 * its one connection).
 */
export async function readEventRelations(
  db: CalDb,
  events: readonly CalEvent[],
): Promise<EventRelations> {
  const ids = [
    validIds(events.flatMap((e) => (e.venue_id === null ? [] : [e.venue_id]))),
    validIds(events.flatMap((e) => e.organizer_ids)),
    validIds(events.flatMap((e) => [...e.category_ids, ...e.tag_ids])),
  ]
  const relations: EventRelations = { venues: new Map(), organizers: new Map(), terms: new Map() }
  if (ids.every((list) => list.length === 0)) return relations
  const joins = KINDS.map(
    ({ alias, table }, n) =>
      sql`left join ${sql.id(table)} as ${sql.id(alias)} on kind.n = ${sql.lit(n)}
        and ${sql.ref(`${alias}.id`)} = any(${ids[n]}::integer[])`,
  )
  const { rows } = await sql<Record<string, unknown>>`
    select kind.n, ${SELECTED} from (values (0), (1), (2)) as kind(n) ${sql.join(joins, sql` `)}`.execute(
    db,
  )
  const [venue, organizer, term] = KINDS
  for (const row of rows) {
    // A kind with no record matched still has its one row, all null.
    if (row.n === 0 && row.v_id !== null) {
      relations.venues.set(Number(row.v_id), pick(row, venue) as unknown as Venue)
    } else if (row.n === 1 && row.o_id !== null) {
      relations.organizers.set(Number(row.o_id), pick(row, organizer) as unknown as Organizer)
    } else if (row.n === 2 && row.t_id !== null) {
      relations.terms.set(Number(row.t_id), toTerm(pick(row, term) as unknown as TermRow))
    }
  }
  return relations
}
