import { lockUntilCommit } from '@kcore/db'
import { sql } from 'kysely'
import { CalNotFoundError, CalTermExistsError } from './errors.js'
import { checkListLength, idIn, inIdOrder, requestIds, validIds } from './id-list.js'
import { rejectNul, requireName } from './input-guard.js'
import type { ListResult } from './page.js'
import { emptyList, pageOf } from './paging.js'
import type { TermRepository } from './repositories.js'
import { slugify } from './slug.js'
import { allocateSlug } from './slug-allocation.js'
import type { CalDb, StoreContext } from './store-context.js'
import type { Taxonomy, Term, TermListFilter, TermPatch } from './term.js'
import { checkParent, insertTerm, siblingNamed, termKind } from './term-insert.js'
import { textOrNull } from './text-or-null.js'
import { transact } from './transact.js'
import { retryOnUniqueViolation } from './unique-violation.js'
import { slugLockKey, treeLockKey } from './write-locks.js'

/** The columns a term record is read from (see {@link toTerm}). */
export const TERM_COLUMNS = [
  'id',
  'taxonomy',
  'name',
  'slug',
  'description',
  'parent_id',
  'count',
] as const satisfies readonly (keyof TermRow)[]

/** The terms of one taxonomy (with their stored counts), for use as a derived table `t`. */
function termsWithCount(db: CalDb, taxonomy: Taxonomy) {
  return db
    .selectFrom('cal_term as term')
    .where('term.taxonomy', '=', taxonomy)
    .select(TERM_COLUMNS.map((c) => `term.${c}` as const))
}

/** A term's row, as {@link TERM_COLUMNS} read it. */
export type TermRow = {
  id: number
  taxonomy: Taxonomy
  name: string
  slug: string
  description: string | null
  parent_id: number | null
  count: number | null
}

/** The term record of a row. */
export function toTerm(row: TermRow): Term {
  return {
    id: row.id,
    taxonomy: row.taxonomy,
    name: row.name,
    slug: row.slug,
    description: row.description,
    parent: row.parent_id ?? 0,
    count: Number(row.count ?? 0),
  }
}

/** The repository of one taxonomy over `ctx`. */
export function createTermRepository(ctx: StoreContext, taxonomy: Taxonomy): TermRepository {
  const { db } = ctx
  const kind = termKind(taxonomy)

  async function getMany(ids: readonly number[]): Promise<Term[]> {
    const wanted = validIds(ids)
    if (wanted.length === 0) return []
    const rows = await db
      .selectFrom(termsWithCount(db, taxonomy).as('t'))
      .selectAll()
      .where(idIn('t.id', wanted))
      .execute()
    return inIdOrder(ids, rows.map(toTerm))
  }

  async function get(id: number): Promise<Term | undefined> {
    return (await getMany([id]))[0]
  }

  async function update(id: number, patch: TermPatch): Promise<Term> {
    rejectNul(patch)
    if (validIds([id]).length === 0) throw new CalNotFoundError(kind, id)
    const wantsSlug = patch.slug !== undefined && patch.slug !== null && patch.slug !== ''
    const base = wantsSlug ? slugify(patch.slug as string, kind) : undefined
    await transact(ctx, async (trx) => {
      // Tree lock, then slug lock, then the row: the order creates, deletes and event writes
      // (slug locks of new names, then term rows) take them in.
      if (patch.parent !== undefined) await lockUntilCommit(trx, treeLockKey(taxonomy))
      if (base !== undefined) await lockUntilCommit(trx, slugLockKey('cal_term', base, taxonomy))
      const current = await trx
        .selectFrom('cal_term')
        .selectAll()
        .where('id', '=', id)
        .where('taxonomy', '=', taxonomy)
        .forUpdate()
        .executeTakeFirst()
      if (!current) throw new CalNotFoundError(kind, id)
      const name =
        patch.name !== undefined ? requireName('name', patch.name, 'a term') : current.name
      const parent =
        patch.parent !== undefined
          ? await checkParent(trx, taxonomy, patch.parent, id)
          : current.parent_id
      const changes: {
        name: string
        parent_id: number | null
        description?: string | null
        slug?: string
      } = {
        name,
        parent_id: parent,
      }
      if (patch.description !== undefined) changes.description = textOrNull(patch.description)
      const existing = await siblingNamed(trx, taxonomy, parent, name, id)
      if (existing !== undefined) throw new CalTermExistsError(name, existing)
      try {
        await retryOnUniqueViolation(
          trx,
          (c) => c.includes('slug'),
          async () => {
            if (base !== undefined && base !== current.slug) {
              changes.slug = await allocateSlug(trx, 'cal_term', base, { taxonomy, excludeId: id })
            }
            await trx.updateTable('cal_term').set(changes).where('id', '=', id).execute()
          },
        )
      } catch (error) {
        const raced = await siblingNamed(trx, taxonomy, parent, name, id)
        if (raced !== undefined) throw new CalTermExistsError(name, raced)
        throw error
      }
    })
    const term = await get(id)
    if (!term) throw new CalNotFoundError(kind, id)
    return term
  }

  async function list(filter: TermListFilter = {}): Promise<ListResult<Term>> {
    rejectNul(filter)
    let q = db.selectFrom(termsWithCount(db, taxonomy).as('t'))
    if (filter.search) {
      const pattern = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
      q = q.where((eb) => eb.or([eb('t.name', 'ilike', pattern), eb('t.slug', 'ilike', pattern)]))
    }
    const include = filter.include ? requestIds(filter.include, 'include') : undefined
    if (include) {
      if (include.length === 0) return emptyList()
      q = q.where('t.id', 'in', include)
    }
    const exclude = filter.exclude ? requestIds(filter.exclude, 'exclude') : []
    if (exclude.length > 0) q = q.where('t.id', 'not in', exclude)
    if (filter.hide_empty ?? true) q = q.where('t.count', '>', 0)
    if (filter.parent !== undefined) {
      const parent = filter.parent
      if (parent !== 0 && validIds([parent]).length === 0) return emptyList()
      q = q.where((eb) =>
        parent === 0 ? eb('t.parent_id', 'is', null) : eb('t.parent_id', '=', parent),
      )
    }
    if (filter.event !== undefined) {
      const event = filter.event
      if (validIds([event]).length === 0) return emptyList()
      q = q.where('t.id', 'in', (eb) =>
        eb.selectFrom('cal_event_term').select('term_id').where('event_id', '=', event),
      )
    }
    if (filter.slug !== undefined) {
      const slugs = typeof filter.slug === 'string' ? [filter.slug] : filter.slug
      checkListLength(slugs, 'slug')
      if (slugs.length === 0) return emptyList()
      q = q.where('t.slug', 'in', slugs)
    }
    const direction = filter.order === 'desc' ? sql`desc` : sql`asc`
    let orderBy = filter.orderby ?? 'name'
    if (orderBy === 'include' && !include) orderBy = 'id'
    const key =
      orderBy === 'include' && include
        ? sql`case ${sql.join(
            include.map((id, i) => sql`when t.id = ${id} then ${sql.lit(i)}`),
            sql` `,
          )} end`
        : orderBy === 'name'
          ? sql`lower(t.name)`
          : sql.ref(`t.${orderBy}`)
    const { limit, offset } = pageOf(filter)
    const [count, rows] = await Promise.all([
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      q
        .selectAll('t')
        .orderBy(sql`${key} ${direction}`)
        .orderBy('t.id')
        .limit(limit)
        .offset(offset)
        .execute(),
    ])
    return { items: rows.map(toTerm), total: Number(count.n) }
  }

  return {
    taxonomy,
    async create(input) {
      const id = await transact(ctx, (trx) => insertTerm(trx, taxonomy, input))
      const term = await get(id)
      if (!term) throw new CalNotFoundError(kind, id)
      return term
    },
    update,
    async delete(id) {
      if (validIds([id]).length === 0) throw new CalNotFoundError(kind, id)
      return transact(ctx, async (trx) => {
        // Its children change parent: no move or create may run beside it (tree lock), and the
        // term and its children are locked in id order, the order event writes lock terms in.
        await lockUntilCommit(trx, treeLockKey(taxonomy))
        await trx
          .selectFrom('cal_term')
          .select('id')
          .where((eb) => eb.or([eb('id', '=', id), eb('parent_id', '=', id)]))
          .orderBy('id')
          .forUpdate()
          .execute()
        const row = await trx
          .selectFrom(termsWithCount(trx, taxonomy).as('t'))
          .selectAll()
          .where('t.id', '=', id)
          .executeTakeFirst()
        if (!row) throw new CalNotFoundError(kind, id)
        await trx
          .updateTable('cal_term')
          .set({ parent_id: row.parent_id })
          .where('parent_id', '=', id)
          .execute()
        // The statement that deletes the row decides who deleted it.
        const gone = await trx
          .deleteFrom('cal_term')
          .where('id', '=', id)
          .returning('id')
          .executeTakeFirst()
        if (!gone) throw new CalNotFoundError(kind, id)
        return toTerm(row)
      })
    },
    get,
    async getBySlug(slug) {
      if (slug.includes('\u0000')) return undefined
      const row = await db
        .selectFrom(termsWithCount(db, taxonomy).as('t'))
        .selectAll()
        .where('t.slug', '=', slug)
        .executeTakeFirst()
      return row && toTerm(row)
    },
    getMany,
    list,
  }
}
