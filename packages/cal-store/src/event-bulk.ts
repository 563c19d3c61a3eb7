import { type Insertable, sql } from 'kysely'
import { CalUnknownReferenceError, CalValidationError } from './errors.js'
import type { EventInput } from './event.js'
import { eventTimes, passwordHashOf } from './event-input-check.js'
import { checkEventLinks } from './event-links.js'
import { serializeCost } from './event-rows.js'
import { checkAuthor, rejectNul } from './input-guard.js'
import type { EventTable } from './schema.js'
import { slugify } from './slug.js'
import type { CalDb } from './store-context.js'
import { textOrNull } from './text-or-null.js'
import { timestampParam } from './timestamp-param.js'
import { transact, type WriteTarget } from './transact.js'

const CHUNK = 500

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

function numericRefs(value: unknown, field: string): number[] {
  if (value === undefined || value === null) return []
  const list = Array.isArray(value) ? value : [value]
  for (const v of list) {
    if (typeof v !== 'number') {
      throw new CalValidationError(field, 'createMany takes related records by id only')
    }
  }
  return list as number[]
}

async function checkIdsExist(
  trx: CalDb,
  table: 'cal_venue' | 'cal_organizer' | 'cal_event' | 'cal_term',
  field: string,
  ids: Set<number>,
  taxonomy?: string,
): Promise<void> {
  for (const part of chunks([...ids], 5000)) {
    let q = trx.selectFrom(table).select('id').where('id', 'in', part).orderBy('id')
    if (taxonomy) q = q.where(sql.ref('taxonomy'), '=', taxonomy)
    // Checked and locked in one statement, as single event writes do (see event-write.ts):
    // venues and organizers must not be trashed and stay so until commit; terms are held
    // against deletes in the count trigger's lock mode; events are never deleted.
    if (table === 'cal_venue' || table === 'cal_organizer') {
      q = q.where(sql.ref('status'), '<>', 'trash').forShare()
    } else if (table === 'cal_term') q = q.forNoKeyUpdate()
    const found = new Set((await q.execute()).map((r) => r.id))
    const missing = part.find((id) => !found.has(id))
    if (missing !== undefined) throw new CalUnknownReferenceError(field, missing)
  }
}

/**
 * Creates many events in one transaction: multi-row inserts of {@link CHUNK} rows, slugs made
 * unique against the table and within the batch in memory (the table is locked against other
 * writers for the duration, so no retry is needed). Returns ids in input order.
 */
export async function createEventsInBulk(
  target: WriteTarget,
  now: Date,
  inputs: readonly EventInput[],
): Promise<number[]> {
  if (inputs.length === 0) return []
  const prepared = await Promise.all(
    inputs.map(async (input, i) => {
      rejectNul(input)
      checkEventLinks(input)
      const title = typeof input.title === 'string' ? input.title.trim() : ''
      if (!title) throw new CalValidationError(`title`, `event #${i} needs a title`)
      const times = eventTimes(
        input.start,
        input.end,
        input.timezone ?? 'UTC',
        input.all_day ?? false,
      )
      return {
        input,
        title,
        zone: times.zone,
        times,
        venue: numericRefs(input.venue, 'venue')[0] ?? null,
        organizers: [...new Set(numericRefs(input.organizers, 'organizers'))],
        categories: [...new Set(numericRefs(input.categories, 'categories'))],
        tags: [...new Set(numericRefs(input.tags, 'tags'))],
        passwordHash: (await passwordHashOf(input.password)) ?? null,
        base: slugify(input.slug || title, 'event'),
      }
    }),
  )

  return transact(target, async (trx) => {
    await sql`lock table cal_event in share row exclusive mode`.execute(trx)
    await checkIdsExist(
      trx,
      'cal_venue',
      'venue',
      new Set(prepared.flatMap((p) => (p.venue ? [p.venue] : []))),
    )
    await checkIdsExist(
      trx,
      'cal_organizer',
      'organizers',
      new Set(prepared.flatMap((p) => p.organizers)),
    )
    await checkIdsExist(
      trx,
      'cal_term',
      'categories',
      new Set(prepared.flatMap((p) => p.categories)),
      'cal_event_category',
    )
    await checkIdsExist(
      trx,
      'cal_term',
      'tags',
      new Set(prepared.flatMap((p) => p.tags)),
      'cal_event_tag',
    )
    const parents = new Set(
      prepared.flatMap((p) => (p.input.post_parent ? [p.input.post_parent] : [])),
    )
    await checkIdsExist(trx, 'cal_event', 'post_parent', parents)

    // Slugs already taken by any base of the batch (itself or with a numeric suffix).
    const taken = new Set<string>()
    for (const part of chunks([...new Set(prepared.map((p) => p.base))], 2000)) {
      const rows = await trx
        .selectFrom('cal_event')
        .select('slug')
        .where((eb) =>
          eb.or([
            eb('slug', 'in', part),
            eb(sql`regexp_replace(slug, '-[0-9]+$', '')`, 'in', part),
          ]),
        )
        .execute()
      for (const r of rows) taken.add(r.slug)
    }
    // Next suffix to try per base, so a batch of 100,000 equal titles stays linear.
    const nextSuffix = new Map<string, number>()
    const slugs = prepared.map((p) => {
      let slug = p.base
      if (taken.has(slug)) {
        let n = nextSuffix.get(p.base) ?? 2
        while (taken.has(`${p.base}-${n}`)) n++
        slug = `${p.base}-${n}`
        nextSuffix.set(p.base, n + 1)
      }
      taken.add(slug)
      return slug
    })

    const ids: number[] = []
    for (const [c, part] of chunks(prepared, CHUNK).entries()) {
      const rows: Insertable<EventTable>[] = part.map((p, j) => ({
        author: checkAuthor(p.input.author),
        status: p.input.status ?? 'publish',
        created: p.input.created ?? now,
        modified: p.input.created ?? now,
        title: p.title,
        description: p.input.description ?? '',
        excerpt: p.input.excerpt ?? '',
        slug: slugs[c * CHUNK + j] as string,
        image: textOrNull(p.input.image),
        all_day: p.input.all_day ?? false,
        start_utc: timestampParam(p.times.start),
        end_utc: timestampParam(p.times.end),
        timezone: p.zone,
        cost: serializeCost(p.input.cost),
        website: textOrNull(p.input.website),
        show_map: p.input.show_map ?? false,
        show_map_link: p.input.show_map_link ?? false,
        hide_from_listings: p.input.hide_from_listings ?? false,
        sticky: p.input.sticky ?? false,
        featured: p.input.featured ?? false,
        ticketed: p.input.ticketed ?? false,
        post_parent: p.input.post_parent ?? null,
        password_hash: p.passwordHash,
        venue_id: p.venue,
        // Set up front so the relation inserts below leave the triggers nothing to rewrite.
        term_ids: [...p.categories, ...p.tags].sort((a, b) => a - b),
      }))
      const inserted = await trx
        .insertInto('cal_event')
        .values(rows)
        .returning(['id', 'slug'])
        .execute()
      const bySlug = new Map(inserted.map((r) => [r.slug, r.id]))
      const partIds = rows.map((r) => bySlug.get(r.slug) as number)
      ids.push(...partIds)
      const organizerRows = part.flatMap((p, j) =>
        p.organizers.map((organizer_id, position) => ({
          event_id: partIds[j] as number,
          organizer_id,
          position,
        })),
      )
      for (const o of chunks(organizerRows, 5000)) {
        await trx.insertInto('cal_event_organizer').values(o).execute()
      }
      const termRows = part.flatMap((p, j) =>
        [...p.categories, ...p.tags].map((term_id) => ({
          event_id: partIds[j] as number,
          term_id,
        })),
      )
      for (const t of chunks(termRows, 5000)) {
        await trx.insertInto('cal_event_term').values(t).execute()
      }
    }
    // PGlite never analyzes by itself: fresh statistics keep later plans right after a big load.
    if (prepared.length >= 1000) {
      await sql`analyze cal_event, cal_event_term, cal_event_organizer`.execute(trx)
    }
    return ids
  })
}
