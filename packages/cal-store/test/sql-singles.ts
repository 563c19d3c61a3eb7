import { sql } from 'kysely'
import type { EventListFilter, TermRef } from '../src/index.js'
import type { CalDb } from '../src/store-context.js'

/**
 * An oracle for the list model's filters, written apart from the store: the single events
 * (no series) a filter lists, by SQL on the stored rows, in list order, paged. Term refs that
 * name no term give `{ unknownRef }` (the store throws `CalUnknownReferenceError`).
 */
export async function sqlSingles(
  db: CalDb,
  filter: EventListFilter,
): Promise<{ ids: number[]; total: number } | { unknownRef: true }> {
  const where: ReturnType<typeof sql<boolean>>[] = [sql<boolean>`e.recurrence is null`]
  const statuses = filter.status ?? ['publish']
  where.push(sql<boolean>`e.status = any(${statuses}::text[])`)
  const int4 = (ids: readonly number[]) =>
    ids.filter((id) => Number.isSafeInteger(id) && id > 0 && id <= 2 ** 31 - 1)
  if (filter.include !== undefined) {
    const ids = filter.include.filter((id) => Number.isSafeInteger(id) && id > 0)
    where.push(sql<boolean>`((e.id = any(${int4(ids)}::integer[]) and e.occurrence_id is null)
      or e.occurrence_id = any(${ids}::bigint[]))`)
  } else {
    const at = (d: Date) => d.toISOString()
    const w = filter.window
    if (w?.start) where.push(sql<boolean>`e.end_utc >= ${at(w.start)}::timestamptz`)
    if (w?.end) where.push(sql<boolean>`e.start_utc <= ${at(w.end)}::timestamptz`)
    if (filter.starts_before)
      where.push(sql<boolean>`e.start_utc < ${at(filter.starts_before)}::timestamptz`)
    if (filter.starts_after)
      where.push(sql<boolean>`e.start_utc > ${at(filter.starts_after)}::timestamptz`)
    if (filter.ends_before)
      where.push(sql<boolean>`e.end_utc < ${at(filter.ends_before)}::timestamptz`)
    if (filter.ends_after)
      where.push(sql<boolean>`e.end_utc > ${at(filter.ends_after)}::timestamptz`)
    if (!filter.include_hidden) where.push(sql<boolean>`not e.hide_from_listings`)
  }
  const words = (filter.search ?? '').split(/\s+/u).filter(Boolean).slice(0, 20)
  for (const word of words) {
    const pattern = `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
    where.push(sql<boolean>`e.search_text like lower(${pattern})`)
  }
  if (words.length && !filter.privileged) where.push(sql<boolean>`e.password_hash is null`)
  if (filter.geoloc || filter.near) {
    const near = filter.near
    where.push(sql<boolean>`exists (select 1 from cal_venue v where v.id = e.venue_id
      and v.geo_lat is not null and v.geo_lng is not null
      and (${near === undefined} or 6371::float8 * 2 * asin(least(1, sqrt(
        power(sin(radians(v.geo_lat - ${near?.lat ?? 0}::float8) / 2), 2)
        + cos(radians(${near?.lat ?? 0}::float8)) * cos(radians(v.geo_lat))
        * power(sin(radians(v.geo_lng - ${near?.lng ?? 0}::float8) / 2), 2))))
        <= ${near?.radius_km ?? 0}::float8))`)
  }
  for (const [field, taxonomy] of [
    ['categories', 'cal_event_category'],
    ['tags', 'cal_event_tag'],
  ] as const) {
    const refs: readonly TermRef[] | undefined = filter[field]
    if (refs === undefined) continue
    const { rows } = await sql<{ id: number; slug: string }>`select id, slug from cal_term
      where taxonomy = ${taxonomy} and (id = any(${int4(refs.filter((r) => typeof r === 'number'))}::integer[])
        or slug = any(${refs.filter((r) => typeof r === 'string')}::text[]))`.execute(db)
    const known = (r: TermRef) =>
      rows.some((row) => (typeof r === 'number' ? row.id : row.slug) === r)
    if (!refs.every(known)) return { unknownRef: true }
    const ids = rows.map((r) => r.id)
    const tree =
      field === 'categories'
        ? sql`with recursive tree(id) as (select unnest(${ids}::integer[])
            union select t.id from cal_term t join tree on t.parent_id = tree.id) select id from tree`
        : sql`select unnest(${ids}::integer[]) as id`
    where.push(sql<boolean>`exists (select 1 from cal_event_term et
      where et.event_id = e.id and et.term_id in (${tree}))`)
  }
  if (filter.venue !== undefined)
    where.push(sql<boolean>`e.venue_id = any(${int4(filter.venue)}::integer[])`)
  if (filter.organizer !== undefined)
    where.push(sql<boolean>`exists (select 1 from cal_event_organizer eo
      where eo.event_id = e.id and eo.organizer_id = any(${int4(filter.organizer)}::integer[]))`)
  for (const flag of ['featured', 'ticketed'] as const)
    if (filter[flag] !== undefined)
      where.push(sql<boolean>`${sql.ref(`e.${flag}`)} = ${filter[flag]}`)
  if (filter.post_parent !== undefined)
    where.push(sql<boolean>`e.post_parent = ${int4([filter.post_parent])[0] ?? 0}`)
  if (filter.modified_after)
    where.push(sql<boolean>`e.modified > ${filter.modified_after.toISOString()}::timestamptz`)
  if (filter.modified_before)
    where.push(sql<boolean>`e.modified < ${filter.modified_before.toISOString()}::timestamptz`)
  const order = filter.sticky_first ? sql`e.sticky desc, e.start_utc, e.id` : sql`e.start_utc, e.id`
  const { rows } = await sql<{ id: number; total: string }>`
    select e.id, count(*) over () as total from cal_event e
    where ${sql.join(where, sql` and `)} order by ${order}`.execute(db)
  const limit = filter.limit ?? 10
  const offset = filter.offset ?? 0
  return {
    ids: rows.slice(offset, offset + limit).map((r) => r.id),
    total: rows.length,
  }
}
