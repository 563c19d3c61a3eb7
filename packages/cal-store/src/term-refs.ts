import { lockAllUntilCommit } from '@kcore/db'
import { sql } from 'kysely'
import { CalTermExistsError, CalUnknownReferenceError } from './errors.js'
import { idIn, validIds } from './id-list.js'
import { rejectNul, requireName } from './input-guard.js'
import { allocateSlugs } from './slug-allocation.js'
import type { CalDb } from './store-context.js'
import type { Taxonomy } from './term.js'
import { insertTerm, termSlugBase } from './term-insert.js'
import { WriteConflict } from './transact.js'
import { slugLockKey } from './write-locks.js'

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
