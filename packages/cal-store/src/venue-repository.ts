import type { Selectable } from 'kysely'
import { CalInTrashError, CalNotFoundError, CalValidationError } from './errors.js'
import { checkAuthor, rejectNul, requireName } from './input-guard.js'
import type { ListResult } from './page.js'
import type { VenueRepository } from './repositories.js'
import type { VenueTable } from './schema.js'
import { containsPattern, searchWords } from './search-words.js'
import { slugify } from './slug.js'
import {
  allocateSlug,
  type CalDb,
  emptyList,
  inIdOrder,
  lockUntilCommit,
  pageOf,
  type StoreContext,
  textOrNull,
  validIds,
} from './store-context.js'
import { retryOnUniqueViolation } from './unique-violation.js'
import type { Venue, VenueInput, VenueListFilter, VenuePatch } from './venue.js'

const TEXT_FIELDS = [
  'description',
  'image',
  'address',
  'city',
  'country',
  'province',
  'state',
  'zip',
  'phone',
  'website',
] as const

const SEARCHED = [
  'name',
  'description',
  'address',
  'city',
  'country',
  'province',
  'state',
  'zip',
] as const

function toVenue(row: Selectable<VenueTable>): Venue {
  return { ...row }
}

function checkCoordinates(lat: number | null | undefined, lng: number | null | undefined): void {
  if (lat !== undefined && lat !== null && !(Number.isFinite(lat) && Math.abs(lat) <= 90)) {
    throw new CalValidationError('geo_lat', 'must be a latitude between -90 and 90')
  }
  if (lng !== undefined && lng !== null && !(Number.isFinite(lng) && Math.abs(lng) <= 180)) {
    throw new CalValidationError('geo_lng', 'must be a longitude between -180 and 180')
  }
}

/** Creates a venue inside the open transaction `trx`. */
export async function insertVenue(trx: CalDb, now: Date, input: VenueInput): Promise<Venue> {
  rejectNul(input)
  const name = requireName('venue', input.name, 'a venue')
  checkCoordinates(input.geo_lat, input.geo_lng)
  const base = slugify(input.slug || name, 'venue')
  const row = await retryOnUniqueViolation(
    trx,
    (c) => c.includes('slug'),
    async () => {
      const slug = await allocateSlug(trx, 'cal_venue', base)
      return trx
        .insertInto('cal_venue')
        .values({
          author: checkAuthor(input.author),
          status: input.status ?? 'publish',
          created: input.created ?? now,
          modified: input.created ?? now,
          name,
          slug,
          show_map: input.show_map ?? false,
          show_map_link: input.show_map_link ?? false,
          geo_lat: input.geo_lat ?? null,
          geo_lng: input.geo_lng ?? null,
          ...Object.fromEntries(TEXT_FIELDS.map((f) => [f, textOrNull(input[f])])),
        })
        .returningAll()
        .executeTakeFirstOrThrow()
    },
  )
  return toVenue(row)
}

/**
 * The venue named `name` (case-insensitive, not trashed, lowest id) or a new one made from
 * `input`: how inline venue objects on event writes resolve.
 */
export async function findOrInsertVenue(trx: CalDb, now: Date, input: VenueInput): Promise<number> {
  rejectNul(input)
  const name = requireName('venue', input.name, 'a venue')
  // Concurrent event writes naming the same new venue would each insert one otherwise.
  await lockUntilCommit(trx, `cal:name:cal_venue:${name.toLowerCase()}`)
  const existing = await trx
    .selectFrom('cal_venue')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .where('status', '<>', 'trash')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst()
  return existing ? existing.id : (await insertVenue(trx, now, input)).id
}

/** The venue repository over `ctx`. */
export function createVenueRepository(ctx: StoreContext): VenueRepository {
  const { db } = ctx

  async function get(id: number): Promise<Venue | undefined> {
    if (validIds([id]).length === 0) return undefined
    const row = await db.selectFrom('cal_venue').selectAll().where('id', '=', id).executeTakeFirst()
    return row && toVenue(row)
  }

  async function getMany(ids: readonly number[]): Promise<Venue[]> {
    const wanted = validIds(ids)
    if (wanted.length === 0) return []
    const rows = await db.selectFrom('cal_venue').selectAll().where('id', 'in', wanted).execute()
    return inIdOrder(ids, rows.map(toVenue))
  }

  async function update(id: number, patch: VenuePatch): Promise<Venue> {
    rejectNul(patch)
    if (validIds([id]).length === 0) throw new CalNotFoundError('venue', id)
    return db.transaction().execute(async (trx) => {
      const current = await trx
        .selectFrom('cal_venue')
        .selectAll()
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst()
      if (!current) throw new CalNotFoundError('venue', id)
      const changes: Partial<Selectable<VenueTable>> = { modified: ctx.now() }
      if (patch.name !== undefined) changes.name = requireName('venue', patch.name, 'a venue')
      if (patch.status !== undefined && patch.status !== null) changes.status = patch.status
      if (patch.author !== undefined) changes.author = checkAuthor(patch.author)
      if (patch.show_map !== undefined) changes.show_map = patch.show_map ?? false
      if (patch.show_map_link !== undefined) changes.show_map_link = patch.show_map_link ?? false
      checkCoordinates(patch.geo_lat, patch.geo_lng)
      if (patch.geo_lat !== undefined) changes.geo_lat = patch.geo_lat
      if (patch.geo_lng !== undefined) changes.geo_lng = patch.geo_lng
      for (const f of TEXT_FIELDS) if (patch[f] !== undefined) changes[f] = textOrNull(patch[f])
      const wantsSlug = patch.slug !== undefined && patch.slug !== null && patch.slug !== ''
      const base = wantsSlug ? slugify(patch.slug as string, 'venue') : undefined
      const row = await retryOnUniqueViolation(
        trx,
        (c) => c.includes('slug'),
        async () => {
          if (base !== undefined && base !== current.slug) {
            changes.slug = await allocateSlug(trx, 'cal_venue', base, { excludeId: id })
          }
          return trx
            .updateTable('cal_venue')
            .set(changes)
            .where('id', '=', id)
            .returningAll()
            .executeTakeFirstOrThrow()
        },
      )
      return toVenue(row)
    })
  }

  async function list(filter: VenueListFilter = {}): Promise<ListResult<Venue>> {
    rejectNul(filter)
    const statuses = filter.status ?? ['publish']
    if (statuses.length === 0) return emptyList()
    let q = db.selectFrom('cal_venue as v').where('v.status', 'in', statuses)
    for (const word of searchWords(filter.search)) {
      const pattern = containsPattern(word)
      q = q.where((eb) => eb.or(SEARCHED.map((f) => eb(`v.${f}`, 'ilike', pattern))))
    }
    if (filter.include) {
      const ids = validIds(filter.include, 'include')
      if (ids.length === 0) return emptyList()
      q = q.where('v.id', 'in', ids)
    }
    if (filter.event !== undefined) {
      const event = filter.event
      if (validIds([event]).length === 0) return emptyList()
      q = q.where('v.id', 'in', (eb) =>
        eb.selectFrom('cal_event').select('venue_id').where('id', '=', event),
      )
    }
    if (filter.has_events !== undefined) {
      const has = filter.has_events
      q = q.where((eb) => {
        const sub = eb.exists(
          eb
            .selectFrom('cal_event as e')
            .select('e.id')
            .whereRef('e.venue_id', '=', 'v.id')
            .where('e.status', '=', 'publish'),
        )
        return has ? sub : eb.not(sub)
      })
    }
    if (filter.upcoming_after !== undefined) {
      const after = filter.upcoming_after
      q = q.where((eb) =>
        eb.exists(
          eb
            .selectFrom('cal_event as e')
            .select('e.id')
            .whereRef('e.venue_id', '=', 'v.id')
            .where('e.status', '=', 'publish')
            .where('e.end_utc', '>', after),
        ),
      )
    }
    const { limit, offset } = pageOf(filter)
    const [count, rows] = await Promise.all([
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      q
        .selectAll('v')
        .orderBy((eb) => eb.fn('lower', ['v.name']))
        .orderBy('v.id')
        .limit(limit)
        .offset(offset)
        .execute(),
    ])
    return { items: rows.map(toVenue), total: Number(count.n) }
  }

  return {
    create: (input) => db.transaction().execute((trx) => insertVenue(trx, ctx.now(), input)),
    update,
    async trash(id) {
      if (validIds([id]).length === 0) throw new CalNotFoundError('venue', id)
      const row = await db
        .updateTable('cal_venue')
        .set({ status: 'trash', modified: ctx.now() })
        .where('id', '=', id)
        .where('status', '<>', 'trash')
        .returningAll()
        .executeTakeFirst()
      if (row) return toVenue(row)
      if (await get(id)) throw new CalInTrashError('venue', id)
      throw new CalNotFoundError('venue', id)
    },
    get,
    async getBySlug(slug) {
      if (slug.includes('\u0000')) return undefined
      const row = await db
        .selectFrom('cal_venue')
        .selectAll()
        .where('slug', '=', slug)
        .executeTakeFirst()
      return row && toVenue(row)
    },
    getMany,
    list,
  }
}
