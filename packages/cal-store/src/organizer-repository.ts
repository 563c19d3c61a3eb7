import type { Selectable } from 'kysely'
import { CalInTrashError, CalNotFoundError } from './errors.js'
import { checkAuthor, rejectNul, requireName } from './input-guard.js'
import type { Organizer, OrganizerInput, OrganizerListFilter, OrganizerPatch } from './organizer.js'
import type { ListResult } from './page.js'
import type { OrganizerRepository } from './repositories.js'
import type { OrganizerTable } from './schema.js'
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

const TEXT_FIELDS = ['description', 'image', 'phone', 'website', 'email'] as const

const SEARCHED = ['name', 'description'] as const

function toOrganizer(row: Selectable<OrganizerTable>): Organizer {
  return { ...row }
}

/** Creates an organizer inside the open transaction `trx`. */
export async function insertOrganizer(
  trx: CalDb,
  now: Date,
  input: OrganizerInput,
): Promise<Organizer> {
  rejectNul(input)
  const name = requireName('organizer', input.name, 'an organizer')
  const base = slugify(input.slug || name, 'organizer')
  const row = await retryOnUniqueViolation(
    trx,
    (c) => c.includes('slug'),
    async () => {
      const slug = await allocateSlug(trx, 'cal_organizer', base)
      return trx
        .insertInto('cal_organizer')
        .values({
          author: checkAuthor(input.author),
          status: input.status ?? 'publish',
          created: input.created ?? now,
          modified: input.created ?? now,
          name,
          slug,
          ...Object.fromEntries(TEXT_FIELDS.map((f) => [f, textOrNull(input[f])])),
        })
        .returningAll()
        .executeTakeFirstOrThrow()
    },
  )
  return toOrganizer(row)
}

/**
 * The organizer named `name` (case-insensitive, not trashed, lowest id) or a new one made from
 * `input`: how inline organizer objects on event writes resolve.
 */
export async function findOrInsertOrganizer(
  trx: CalDb,
  now: Date,
  input: OrganizerInput,
): Promise<number> {
  rejectNul(input)
  const name = requireName('organizer', input.name, 'an organizer')
  // Concurrent event writes naming the same new organizer would each insert one otherwise.
  await lockUntilCommit(trx, `cal:name:cal_organizer:${name.toLowerCase()}`)
  const existing = await trx
    .selectFrom('cal_organizer')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .where('status', '<>', 'trash')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst()
  return existing ? existing.id : (await insertOrganizer(trx, now, input)).id
}

/** The organizer repository over `ctx`. */
export function createOrganizerRepository(ctx: StoreContext): OrganizerRepository {
  const { db } = ctx

  async function get(id: number): Promise<Organizer | undefined> {
    if (validIds([id]).length === 0) return undefined
    const row = await db
      .selectFrom('cal_organizer')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst()
    return row && toOrganizer(row)
  }

  async function getMany(ids: readonly number[]): Promise<Organizer[]> {
    const wanted = validIds(ids)
    if (wanted.length === 0) return []
    const rows = await db
      .selectFrom('cal_organizer')
      .selectAll()
      .where('id', 'in', wanted)
      .execute()
    return inIdOrder(ids, rows.map(toOrganizer))
  }

  async function update(id: number, patch: OrganizerPatch): Promise<Organizer> {
    rejectNul(patch)
    if (validIds([id]).length === 0) throw new CalNotFoundError('organizer', id)
    return db.transaction().execute(async (trx) => {
      const current = await trx
        .selectFrom('cal_organizer')
        .selectAll()
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst()
      if (!current) throw new CalNotFoundError('organizer', id)
      const changes: Partial<Selectable<OrganizerTable>> = { modified: ctx.now() }
      if (patch.name !== undefined)
        changes.name = requireName('organizer', patch.name, 'an organizer')
      if (patch.status !== undefined && patch.status !== null) changes.status = patch.status
      if (patch.author !== undefined) changes.author = checkAuthor(patch.author)
      for (const f of TEXT_FIELDS) if (patch[f] !== undefined) changes[f] = textOrNull(patch[f])
      const wantsSlug = patch.slug !== undefined && patch.slug !== null && patch.slug !== ''
      const base = wantsSlug ? slugify(patch.slug as string, 'organizer') : undefined
      const row = await retryOnUniqueViolation(
        trx,
        (c) => c.includes('slug'),
        async () => {
          if (base !== undefined && base !== current.slug) {
            changes.slug = await allocateSlug(trx, 'cal_organizer', base, { excludeId: id })
          }
          return trx
            .updateTable('cal_organizer')
            .set(changes)
            .where('id', '=', id)
            .returningAll()
            .executeTakeFirstOrThrow()
        },
      )
      return toOrganizer(row)
    })
  }

  async function list(filter: OrganizerListFilter = {}): Promise<ListResult<Organizer>> {
    rejectNul(filter)
    const statuses = filter.status ?? ['publish']
    if (statuses.length === 0) return emptyList()
    let q = db.selectFrom('cal_organizer as v').where('v.status', 'in', statuses)
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
        eb.selectFrom('cal_event_organizer').select('organizer_id').where('event_id', '=', event),
      )
    }
    if (filter.has_events !== undefined) {
      const has = filter.has_events
      q = q.where((eb) => {
        const sub = eb.exists(
          eb
            .selectFrom('cal_event_organizer as eo')
            .innerJoin('cal_event as e', 'e.id', 'eo.event_id')
            .select('e.id')
            .whereRef('eo.organizer_id', '=', 'v.id')
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
            .selectFrom('cal_event_organizer as eo')
            .innerJoin('cal_event as e', 'e.id', 'eo.event_id')
            .select('e.id')
            .whereRef('eo.organizer_id', '=', 'v.id')
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
    return { items: rows.map(toOrganizer), total: Number(count.n) }
  }

  return {
    create: (input) => db.transaction().execute((trx) => insertOrganizer(trx, ctx.now(), input)),
    update,
    async trash(id) {
      if (validIds([id]).length === 0) throw new CalNotFoundError('organizer', id)
      const row = await db
        .updateTable('cal_organizer')
        .set({ status: 'trash', modified: ctx.now() })
        .where('id', '=', id)
        .where('status', '<>', 'trash')
        .returningAll()
        .executeTakeFirst()
      if (row) return toOrganizer(row)
      if (await get(id)) throw new CalInTrashError('organizer', id)
      throw new CalNotFoundError('organizer', id)
    },
    get,
    async getBySlug(slug) {
      if (slug.includes('\u0000')) return undefined
      const row = await db
        .selectFrom('cal_organizer')
        .selectAll()
        .where('slug', '=', slug)
        .executeTakeFirst()
      return row && toOrganizer(row)
    },
    getMany,
    list,
  }
}
