import { lockUntilCommit } from '@kcore/db'
import { sql } from 'kysely'
import { CalTermExistsError, CalUnknownReferenceError, CalValidationError } from './errors.js'
import { validIds } from './id-list.js'
import { rejectNul, requireName } from './input-guard.js'
import { slugify } from './slug.js'
import { allocateSlug } from './slug-allocation.js'
import type { CalDb } from './store-context.js'
import type { Taxonomy, TermInput } from './term.js'
import { textOrNull } from './text-or-null.js'
import { retryOnUniqueViolation } from './unique-violation.js'
import { treeLockKey } from './write-locks.js'

/** The id of the sibling (same taxonomy and parent) named `name` case-insensitively. */
export async function siblingNamed(
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
export async function checkParent(
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
export function termSlugBase(taxonomy: Taxonomy, slugOrName: string): string {
  return slugify(slugOrName, taxonomy === 'cal_event_tag' ? 'tag' : 'category')
}

/** The record kind of a term of `taxonomy`, as errors and changes name it. */
export const termKind = (taxonomy: Taxonomy) => (taxonomy === 'cal_event_tag' ? 'tag' : 'category')

/** Creates a term inside the open transaction `trx`. */
export async function insertTerm(
  trx: CalDb,
  taxonomy: Taxonomy,
  input: TermInput,
): Promise<number> {
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
