import { type Insertable, type RawBuilder, sql } from 'kysely'
import { CalValidationError } from './errors.js'
import { EVENT_FLAGS } from './event.js'
import type { EventRow } from './event-rows.js'
import type { EventTable } from './schema.js'
import { noteSeriesId } from './series-id-note.js'
import { MAX_SERIES_SLOT } from './series-ids.js'
import type { Recurrence } from './series-recurrence.js'
import type { CalDb } from './store-context.js'

/**
 * A new series' slot from its sequence (migration 0014). Past the last slot the sequence
 * refuses (its maxvalue); that is a request error on `recurrence`, not a 500.
 */
export async function nextSeriesSlot(trx: CalDb): Promise<number> {
  const { rows } = await sql<{ slot: number }>`select n as slot from (
      select case when last_value < ${MAX_SERIES_SLOT} or not is_called then 1 else 0 end as ok
      from cal_series_slot_seq) s, lateral (select nextval('cal_series_slot_seq')::integer as n
        where s.ok = 1) v`.execute(trx)
  const slot = rows[0]?.slot
  if (slot === undefined) {
    throw new CalValidationError('recurrence', `the store holds at most ${MAX_SERIES_SLOT} series`)
  }
  return slot
}

/** Deletes overrides of `seriesId` (all, or those `lost` says are gone); their occurrence ids. */
async function deleteOverrides(
  trx: CalDb,
  seriesId: number,
  lost?: (key: number) => boolean,
): Promise<number[]> {
  const rows = await trx
    .selectFrom('cal_event')
    .select(['id', 'occurrence_key', 'occurrence_id'])
    .where('post_parent', '=', seriesId)
    .where('occurrence_key', 'is not', null)
    .orderBy('id')
    .forUpdate()
    .execute()
  const gone = lost ? rows.filter((r) => lost(Number(r.occurrence_key))) : rows
  if (gone.length === 0) return []
  await trx
    .deleteFrom('cal_event')
    .where(
      'id',
      'in',
      gone.map((r) => r.id),
    )
    .execute()
  const ids = gone.map((r) => Number(r.occurrence_id))
  // The first occurrence's edit went by the series' id, which goes on answering.
  if (ids.includes(seriesId)) await noteSeriesId(trx, seriesId)
  return ids
}

/** Drops every override of `seriesId` (it became a single event); their occurrence ids. */
export function dropOverrides(trx: CalDb, seriesId: number): Promise<number[]> {
  return deleteOverrides(trx, seriesId)
}

/** Drops the overrides whose occurrence `recurrence` no longer has; their occurrence ids. */
export function dropLostOverrides(
  trx: CalDb,
  seriesId: number,
  recurrence: Recurrence,
): Promise<number[]> {
  return deleteOverrides(trx, seriesId, (key) => recurrence.byKey(key) === undefined)
}

/** Series columns an edit of the whole series carries to its overrides (see below). */
const SHARED_COLUMNS = [
  'title',
  'description',
  'excerpt',
  'status',
  'author',
  'image',
  'cost',
  'website',
  'venue_id',
  'password_hash',
  ...EVENT_FLAGS,
] as const

/**
 * An edit of the whole series changes every occurrence, edited ones included, except in the
 * fields an override changed itself: a field is carried to the overrides that still hold the
 * series' old value (what calendar clients do: a renamed series renames its moved occurrence,
 * never the one renamed on its own). Trashing the series trashes them all.
 */
export async function carryToOverrides(
  trx: CalDb,
  current: EventRow,
  changes: Partial<Insertable<EventTable>>,
): Promise<void> {
  for (const column of SHARED_COLUMNS) {
    const value = changes[column]
    if (value === undefined || value === current[column]) continue
    const old = current[column]
    await trx
      .updateTable('cal_event')
      .set({ [column]: value, modified: changes.modified })
      .where('post_parent', '=', current.id)
      .where('occurrence_key', 'is not', null)
      .where(
        column === 'status' && value === 'trash'
          ? sql<boolean>`true`
          : sql<boolean>`${sql.ref(column)} is not distinct from ${old}`,
      )
      .execute()
  }
}

/** The relations an edit of the whole series carries on their own, like fields. */
export type CarriedRelation = 'organizers' | 'categories' | 'tags'

const TAXONOMY = { categories: 'cal_event_category', tags: 'cal_event_tag' } as const

/** One event's value of `relation`, as an array comparable with `is not distinct from`. */
function relationOf(relation: CarriedRelation, event: RawBuilder<unknown>) {
  return relation === 'organizers'
    ? sql`(select array_agg(organizer_id order by position) from cal_event_organizer
        where event_id = ${event})`
    : sql`(select array_agg(et.term_id order by et.term_id) from cal_event_term et
        join cal_term t on t.id = et.term_id and t.taxonomy = ${TAXONOMY[relation]}
        where et.event_id = ${event})`
}

/**
 * The overrides of a series that hold the series' value of each relation in `relations`
 * (organizers in order, terms as sets): read before the series' own relations change, so
 * {@link carryRelations} gives them the new value, as {@link carryToOverrides} does fields.
 */
export async function overridesHolding(
  trx: CalDb,
  seriesId: number,
  relations: readonly CarriedRelation[],
): Promise<Map<CarriedRelation, number[]>> {
  const holders = new Map<CarriedRelation, number[]>()
  if (relations.length === 0) return holders
  const series = sql`${seriesId}::integer`
  const columns = relations.map(
    (r) =>
      sql`${relationOf(r, sql.ref('o.id'))} is not distinct from ${relationOf(r, series)} as ${sql.id(r)}`,
  )
  const { rows } = await sql<Record<CarriedRelation, boolean> & { id: number }>`
    select o.id, ${sql.join(columns)} from cal_event o
    where o.post_parent = ${seriesId} and o.occurrence_key is not null`.execute(trx)
  for (const r of relations) {
    holders.set(
      r,
      rows.filter((row) => row[r]).map((row) => row.id),
    )
  }
  return holders
}

/**
 * Gives the overrides `holders` found the series' (new) value of each relation: what the
 * series does not hold is unlinked, the rest linked (organizers in the series' order), so
 * links both keep are left in place; their `modified` moves, as a carried field's does.
 */
export async function carryRelations(
  trx: CalDb,
  seriesId: number,
  holders: ReadonlyMap<CarriedRelation, readonly number[]>,
  now: Date,
): Promise<void> {
  const touched = new Set<number>()
  for (const [relation, ids] of holders) {
    if (ids.length === 0) continue
    for (const id of ids) touched.add(id)
    if (relation === 'organizers') {
      await sql`with gone as (delete from cal_event_organizer x
          where x.event_id = any(${ids}::integer[]) and x.organizer_id not in
            (select organizer_id from cal_event_organizer where event_id = ${seriesId}))
        insert into cal_event_organizer (event_id, organizer_id, position)
        select t.id, s.organizer_id, s.position
        from unnest(${ids}::integer[]) as t(id), cal_event_organizer s
        where s.event_id = ${seriesId}
        on conflict (event_id, organizer_id) do update set position = excluded.position
        where cal_event_organizer.position <> excluded.position`.execute(trx)
      continue
    }
    const taxonomy = TAXONOMY[relation]
    await sql`with gone as (delete from cal_event_term x
        where x.event_id = any(${ids}::integer[])
          and x.term_id in (select id from cal_term where taxonomy = ${taxonomy})
          and x.term_id not in (select term_id from cal_event_term where event_id = ${seriesId}))
      insert into cal_event_term (event_id, term_id)
      select t.id, s.term_id from unnest(${ids}::integer[]) as t(id), cal_event_term s
      join cal_term term on term.id = s.term_id and term.taxonomy = ${taxonomy}
      where s.event_id = ${seriesId}
      on conflict do nothing`.execute(trx)
  }
  if (touched.size > 0) {
    await trx
      .updateTable('cal_event')
      .set({ modified: now })
      .where('id', 'in', [...touched])
      .execute()
  }
}
