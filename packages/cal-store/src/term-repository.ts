import { lockAllUntilCommit, lockUntilCommit } from '@kcore/db'
import { sql } from 'kysely'
import {
  CalNotFoundError,
  CalTermExistsError,
  CalUnknownReferenceError,
  CalValidationError,
} from './errors.js'
import { checkListLength, idIn, inIdOrder, requestIds, validIds } from './id-list.js'
import { rejectNul, requireName } from './input-guard.js'
import type { ListResult } from './page.js'
import { emptyList, pageOf } from './paging.js'
import type { TermRepository } from './repositories.js'
import { slugify } from './slug.js'
import { allocateSlug, allocateSlugs } from './slug-allocation.js'
import type { CalDb, StoreContext } from './store-context.js'
import type { Taxonomy, Term, TermInput, TermListFilter, TermPatch } from './term.js'
import { textOrNull } from './text-or-null.js'
import { transact, WriteConflict } from './transact.js'
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

/** The id of the sibling (same taxonomy and parent) named `name` case-insensitively. */
async function siblingNamed(
  db: CalDb,
  taxonomy: Taxonomy,
  parent: number | null,
  name: string,
  excludeId?: number,
): Promise<number | undefined> {
  let q = db
    .selectFrom('cal_term')
    .select('id')
    .where('taxonomy', '=', taxonomy)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .where((eb) => (parent === null ? eb('parent_id', 'is', null) : eb('parent_id', '=', parent)))
  if (excludeId !== undefined) q = q.where('id', '<>', excludeId)
  return (await q.executeTakeFirst())?.id
}

/**
 * Checks a wanted parent: categories only, must exist, must not be `self` or below it. The
 * walk up is one recursive statement bounded by the tree itself (no depth limit: a chain of
 * any length is a tree); `union` drops rows already seen, so it ends even on a cycle written
 * behind the store.
 */
async function checkParent(
  db: CalDb,
  taxonomy: Taxonomy,
  parent: number | null | undefined,
  self?: number,
): Promise<number | null> {
  if (parent === undefined || parent === null || parent === 0) return null
  if (taxonomy === 'cal_event_tag') throw new CalValidationError('parent', 'tags have no parent')
  const ancestors = validIds([parent]).length
    ? (
        await sql<{ id: number }>`
          with recursive up(id, parent_id) as (
            select id, parent_id from cal_term where id = ${parent} and taxonomy = ${taxonomy}
            union
            select t.id, t.parent_id from cal_term t join up on t.id = up.parent_id
          )
          select id from up`.execute(db)
      ).rows
    : []
  if (ancestors.length === 0) throw new CalUnknownReferenceError('parent', parent)
  if (self !== undefined && ancestors.some((row) => row.id === self)) {
    throw new CalValidationError('parent', 'a category cannot be its own ancestor')
  }
  return parent
}

/** The slug a new term of `taxonomy` starts from. */
function termSlugBase(taxonomy: Taxonomy, slugOrName: string): string {
  return slugify(slugOrName, taxonomy === 'cal_event_tag' ? 'tag' : 'category')
}

/** The record kind of a term of `taxonomy`, as errors and changes name it. */
const termKind = (taxonomy: Taxonomy) => (taxonomy === 'cal_event_tag' ? 'tag' : 'category')

/** Creates a term inside the open transaction `trx`. */
async function insertTerm(trx: CalDb, taxonomy: Taxonomy, input: TermInput): Promise<number> {
  rejectNul(input)
  const name = requireName('name', input.name, 'a term')
  // A child of a term being deleted would be left under a gone parent: queue on the tree.
  if (input.parent) await lockUntilCommit(trx, treeLockKey(taxonomy))
  const parent = await checkParent(trx, taxonomy, input.parent)
  const existing = await siblingNamed(trx, taxonomy, parent, name)
  if (existing !== undefined) throw new CalTermExistsError(name, existing)
  const base = termSlugBase(taxonomy, input.slug || name)
  try {
    const id = await retryOnUniqueViolation(
      trx,
      (c) => c.includes('slug'),
      async () => {
        const slug = await allocateSlug(trx, 'cal_term', base, { taxonomy })
        const row = await trx
          .insertInto('cal_term')
          .values({
            taxonomy,
            name,
            slug,
            description: textOrNull(input.description),
            parent_id: parent,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
        return row.id
      },
    )
    return id
  } catch (error) {
    const raced = await siblingNamed(trx, taxonomy, parent, name)
    if (raced !== undefined) throw new CalTermExistsError(name, raced)
    throw error
  }
}

/**
 * The ids of the terms of `taxonomy` named like `names` (case-insensitively, the lowest id
 * where several match), by lowercased name; one statement for any number of names.
 */
async function termsNamed(
  trx: CalDb,
  taxonomy: Taxonomy,
  names: readonly string[],
): Promise<Map<string, number>> {
  const keys = [...new Set(names.map((n) => n.toLowerCase()))]
  const rows = keys.length
    ? (
        await sql<{ key: string; id: number }>`
          select distinct on (lower(name)) lower(name) as key, id from cal_term
          where taxonomy = ${taxonomy} and lower(name) = any(${keys}::text[])
          order by lower(name), id`.execute(trx)
      ).rows
    : []
  return new Map(rows.map((r) => [r.key, r.id]))
}

/**
 * Inserts root terms named `names` (none of which exists) in one statement, slugs from
 * {@link allocateSlugs}; the caller holds the slug locks of their bases. A row that still clashes (a concurrent write of the same name or a given slug
 * like `base-2`) is skipped, and the caller takes the one-by-one path for it.
 */
async function insertRootTerms(
  trx: CalDb,
  taxonomy: Taxonomy,
  names: readonly string[],
): Promise<Map<string, number>> {
  const slugs = await allocateSlugs(
    trx,
    'cal_term',
    names.map((name) => termSlugBase(taxonomy, name)),
    taxonomy,
  )
  const { rows } = await sql<{ key: string; id: number }>`
    insert into cal_term (taxonomy, name, slug)
    select ${taxonomy}, n.name, n.slug from unnest(${names}::text[], ${slugs}::text[]) as n(name, slug)
    on conflict do nothing
    returning lower(name) as key, id`.execute(trx)
  return new Map(rows.map((r) => [r.key, r.id]))
}

/**
 * Resolves term references (ids or names) to ids, creating root terms for unknown names. Set
 * based: a write naming 1,000 new terms costs a handful of statements, not thousands.
 */
export async function resolveTermRefs(
  trx: CalDb,
  taxonomy: Taxonomy,
  field: string,
  refs: readonly (number | string)[],
): Promise<number[]> {
  const numbers = refs.filter((r): r is number => typeof r === 'number')
  if (numbers.length > 0) {
    const valid = validIds(numbers)
    const found = valid.length
      ? await trx
          .selectFrom('cal_term')
          .select('id')
          .where('taxonomy', '=', taxonomy)
          .where(idIn('id', valid))
          .execute()
      : []
    const known = new Set(found.map((r) => r.id))
    const missing = numbers.find((n) => !known.has(n))
    if (missing !== undefined) throw new CalUnknownReferenceError(field, missing)
  }
  const names = refs.flatMap((ref) => {
    if (typeof ref === 'number') return []
    rejectNul(ref, field)
    return [requireName(field, ref, 'a term')]
  })
  // Inserting takes the slug lock of each new name; taking them all first, in one order, keeps
  // writers naming [A, B] and [B, A] from deadlocking.
  await lockAllUntilCommit(
    trx,
    names.map((name) => slugLockKey('cal_term', termSlugBase(taxonomy, name), taxonomy)),
  )
  const byName = await termsNamed(trx, taxonomy, names)
  const fresh = [...new Map(names.map((n) => [n.toLowerCase(), n])).entries()]
    .filter(([key]) => !byName.has(key))
    .map(([, name]) => name)
  if (fresh.length > 0) {
    for (const [key, id] of await insertRootTerms(trx, taxonomy, fresh)) byName.set(key, id)
  }
  const ids: number[] = []
  for (const ref of refs) {
    if (typeof ref === 'number') {
      ids.push(ref)
      continue
    }
    const name = ref.trim()
    const id = byName.get(name.toLowerCase())
    if (id !== undefined) {
      ids.push(id)
      continue
    }
    try {
      const created = await insertTerm(trx, taxonomy, { name })
      byName.set(name.toLowerCase(), created)
      ids.push(created)
    } catch (error) {
      // A concurrent writer created the same root term first: use it.
      if (!(error instanceof CalTermExistsError)) throw error
      byName.set(name.toLowerCase(), error.termId)
      ids.push(error.termId)
    }
  }
  return [...new Set(ids)]
}

/** The term references of one field of an event write, and the ids they resolved to. */
export interface ResolvedTerms {
  field: string
  refs: readonly (number | string)[]
  ids: readonly number[]
}

/**
 * Locks, in one statement in id order, the terms an event write links (`resolved`) and unlinks
 * (`unlinked`), `FOR NO KEY UPDATE`: the lock the term-count trigger takes anyway, so it is
 * never upgraded while a delete waits (deadlock), and a delete of one of them (which needs
 * `FOR UPDATE`) waits for this write, or this write sees the term gone. A gone term given by id
 * is `CalUnknownReferenceError`, as in the serial order; one a name resolved to is a
 * {@link WriteConflict}: the retry resolves the name again (and creates it).
 */
export async function lockEventTerms(
  trx: CalDb,
  resolved: readonly ResolvedTerms[],
  unlinked: readonly number[] = [],
): Promise<void> {
  const wanted = [...new Set([...resolved.flatMap((r) => r.ids), ...unlinked])]
  if (wanted.length === 0) return
  const rows = await trx
    .selectFrom('cal_term')
    .select('id')
    .where(idIn('id', wanted))
    .orderBy('id')
    .forNoKeyUpdate()
    .execute()
  const live = new Set(rows.map((r) => r.id))
  for (const { field, refs, ids } of resolved) {
    const gone = ids.find((id) => !live.has(id))
    if (gone === undefined) continue
    if (refs.includes(gone)) throw new CalUnknownReferenceError(field, gone)
    throw new WriteConflict(`${field}: term ${gone} was deleted while the write resolved it`)
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
