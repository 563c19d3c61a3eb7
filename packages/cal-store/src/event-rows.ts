import type { Selectable } from 'kysely'
import { type CalEvent, type Cost, EVENT_FLAGS } from './event.js'
import type { EventTable } from './schema.js'
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
] as const satisfies readonly (keyof EventRow)[]

/** Parses the stored cost JSON back into what was written. */
export function parseCost(text: string | null): Cost | null {
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

/**
 * Turns event rows into records, loading organizers and terms of all of them in two queries.
 * Keeps the order of `rows`.
 */
export async function toEvents(db: CalDb, rows: EventRow[]): Promise<CalEvent[]> {
  if (rows.length === 0) return []
  const ids = rows.map((r) => r.id)
  const [organizers, terms] = await Promise.all([
    db
      .selectFrom('cal_event_organizer')
      .select(['event_id', 'organizer_id'])
      .where('event_id', 'in', ids)
      .orderBy('event_id')
      .orderBy('position')
      .execute(),
    db
      .selectFrom('cal_event_term as et')
      .innerJoin('cal_term as t', 't.id', 'et.term_id')
      .select(['et.event_id', 'et.term_id', 't.taxonomy'])
      .where('et.event_id', 'in', ids)
      .orderBy('et.term_id')
      .execute(),
  ])
  const rel = new Map<number, { organizers: number[]; categories: number[]; tags: number[] }>()
  for (const id of ids) rel.set(id, { organizers: [], categories: [], tags: [] })
  for (const o of organizers) rel.get(o.event_id)?.organizers.push(o.organizer_id)
  for (const t of terms) {
    const r = rel.get(t.event_id)
    if (!r) continue
    if (t.taxonomy === 'cal_event_tag') r.tags.push(t.term_id)
    else r.categories.push(t.term_id)
  }
  return rows.map((row) => {
    const r = rel.get(row.id) ?? { organizers: [], categories: [], tags: [] }
    return {
      id: row.id,
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
      post_parent: row.post_parent,
      password_protected: row.password_hash !== null,
      venue_id: row.venue_id,
      organizer_ids: r.organizers,
      category_ids: r.categories,
      tag_ids: r.tags,
    }
  })
}
