import { type Selectable, sql } from 'kysely'
import { type CalEvent, type Cost, EVENT_FLAGS } from './event.js'
import { idIn, validIds } from './id-list.js'
import type { EventTable } from './schema.js'
import { parseRecurrence, type RecurrenceInput } from './series-recurrence.js'
import type { CalDb } from './store-context.js'

/** An event row as read (every column but the derived `search_text` and `term_ids`). */
export type EventRow = Omit<Selectable<EventTable>, 'search_text' | 'term_ids'>

/** The columns of {@link EventRow}, for `select`. */
export const EVENT_COLUMNS = [
  'id',
  'author',
  'status',
  'created',
  'modified',
  'title',
  'description',
  'excerpt',
  'slug',
  'image',
  'all_day',
  'start_utc',
  'end_utc',
  'timezone',
  'cost',
  'website',
  ...EVENT_FLAGS,
  'post_parent',
  'password_hash',
  'venue_id',
  'sequence',
  'recurrence',
  'series_slot',
  'occurrence_key',
  'occurrence_id',
  'occurrence_start',
] as const satisfies readonly (keyof EventRow)[]

/** Parses the stored cost JSON back into what was written. */
function parseCost(text: string | null): Cost | null {
  if (text === null) return null
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value === 'string') return value
    if (Array.isArray(value)) return value.map(String)
  } catch {
    // Written by something else than this store: keep it as one string.
  }
  return text
}

/** The stored form of a cost (JSON text), `null` for no cost. */
export function serializeCost(cost: Cost | null | undefined): string | null {
  if (cost === undefined || cost === null) return null
  if (Array.isArray(cost)) return cost.length === 0 ? null : JSON.stringify(cost.map(String))
  return cost === '' ? null : JSON.stringify(cost)
}

/** An event row with its organizer, category and tag ids, as {@link selectEvents} reads it. */
export type EventRowWithRelations = EventRow & {
  organizer_ids: number[]
  category_ids: number[]
  tag_ids: number[]
  /** An override: its series' recurrence (JSON text); else null. */
  series_recurrence: string | null
}

/** The ids of a taxonomy's terms linked to the event row at hand, ascending. */
const termIds = (taxonomy: string) =>
  sql<number[]>`array(select et.term_id from cal_event_term et
    join cal_term t on t.id = et.term_id
    where et.event_id = cal_event.id and t.taxonomy = ${taxonomy} order by et.term_id)`

/**
 * Events with their relations in one statement (organizers in their order, categories and
 * tags by id): a read of one event or of a list page is one round trip. Add the `where`.
 */
export function selectEvents(db: CalDb) {
  return db
    .selectFrom('cal_event')
    .select(EVENT_COLUMNS)
    .select([
      sql<number[]>`array(select eo.organizer_id from cal_event_organizer eo
        where eo.event_id = cal_event.id order by eo.position)`.as('organizer_ids'),
      termIds('cal_event_category').as('category_ids'),
      termIds('cal_event_tag').as('tag_ids'),
      sql<string | null>`(select s.recurrence from cal_event s
        where s.id = cal_event.post_parent and cal_event.occurrence_key is not null)`.as(
        'series_recurrence',
      ),
    ])
}

/**
 * The events stored in the rows `rowIds`, as records in the order of `rowIds` (invalid ids
 * skipped). A row id is the record's id except for an override, whose record carries its
 * occurrence's id (`toEvent`).
 */
export async function readEvents(db: CalDb, rowIds: readonly number[]): Promise<CalEvent[]> {
  const byRow = await readEventsByRow(db, rowIds)
  return rowIds.flatMap((id) => byRow.get(id) ?? [])
}

/** The events stored in the rows `rowIds` that exist, by row id. */
export async function readEventsByRow(
  db: CalDb,
  rowIds: readonly number[],
): Promise<Map<number, CalEvent>> {
  const wanted = validIds(rowIds)
  if (wanted.length === 0) return new Map()
  const rows = await selectEvents(db).where(idIn('id', wanted)).execute()
  return new Map(rows.map((row) => [row.id, toEvent(row)]))
}

/** An event record from its row. */
export function toEvent(row: EventRowWithRelations): CalEvent {
  const override = row.occurrence_key !== null
  const recurrence = row.recurrence ?? row.series_recurrence
  return {
    id: override ? Number(row.occurrence_id) : row.id,
    author: row.author,
    status: row.status,
    created: row.created,
    modified: row.modified,
    sequence: row.sequence,
    title: row.title,
    description: row.description,
    excerpt: row.excerpt,
    slug: row.slug,
    image: row.image,
    all_day: row.all_day,
    start: row.start_utc,
    end: row.end_utc,
    timezone: row.timezone,
    cost: parseCost(row.cost),
    website: row.website,
    show_map: row.show_map,
    show_map_link: row.show_map_link,
    hide_from_listings: row.hide_from_listings,
    sticky: row.sticky,
    featured: row.featured,
    ticketed: row.ticketed,
    // A series row is its first occurrence: its own series.
    post_parent: row.recurrence !== null ? row.id : row.post_parent,
    password_protected: row.password_hash !== null,
    venue_id: row.venue_id,
    organizer_ids: row.organizer_ids,
    category_ids: row.category_ids,
    tag_ids: row.tag_ids,
    recurrence: recurrence === null ? null : (parseRecurrence(recurrence) as RecurrenceInput),
    occurrence_start:
      row.recurrence !== null ? row.start_utc : override ? row.occurrence_start : null,
    ...(override && { edited: true }),
  }
}
