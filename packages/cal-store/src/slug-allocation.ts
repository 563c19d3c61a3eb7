import { lockUntilCommit } from '@kcore/db'
import { sql } from 'kysely'
import type { SluggedTable } from './schema.js'
import { firstFreeSlug } from './slug.js'
import type { CalDb } from './store-context.js'
import { slugLockKey } from './write-locks.js'

/**
 * The first free slug `base`, `base-2`, … in `table` (within `taxonomy` for terms), ignoring the
 * row `excludeId` (its own slug on update). `base` must already be a slug (`[a-z0-9-]`).
 * Call it inside the writing transaction: writers of the same base queue on a transaction-scoped
 * advisory lock (every process sharing the database), so each one sees the slug the previous
 * one committed. Without it, N concurrent writers all pick the same free slug and all but one
 * retry, N rounds in all, more than the retry budget. Rarer clashes (a given slug `base-2`
 * against the base `base`) are settled by the unique index: callers retry on violation.
 */
export async function allocateSlug(
  db: CalDb,
  table: SluggedTable,
  base: string,
  options: { taxonomy?: string; excludeId?: number } = {},
): Promise<string> {
  await lockUntilCommit(db, slugLockKey(table, base, options.taxonomy))
  let q = db
    .selectFrom(table)
    .select('slug')
    .where((eb) =>
      eb.or([
        eb('slug', '=', base),
        // A btree range (slug columns use the "C" collation), then the exact shape.
        eb.and([
          eb('slug', '>=', `${base}-`),
          eb('slug', '<', `${base}.`),
          eb('slug', '~', `^${base}-[0-9]+$`),
        ]),
      ]),
    )
  if (options.taxonomy !== undefined) {
    q = q.where(sql.ref('taxonomy'), '=', options.taxonomy)
  }
  if (options.excludeId !== undefined) q = q.where('id', '<>', options.excludeId)
  const rows = await q.execute()
  return firstFreeSlug(base, new Set(rows.map((r) => r.slug)))
}

/**
 * {@link allocateSlug} for many `bases` at once: the slugs they take are read in one statement
 * (the same btree range per base) and the free ones chosen in memory, distinct among
 * themselves, in the order of `bases`. The caller holds the slug lock of every base (taken
 * up front with `lockAllUntilCommit` of `@kcore/db`) and inserts with `on conflict do nothing`, taking
 * the one-by-one path for a row that still clashes (a given slug such as `base-2`).
 */
export async function allocateSlugs(
  db: CalDb,
  table: SluggedTable,
  bases: readonly string[],
  taxonomy?: string,
): Promise<string[]> {
  const { rows } = await sql<{ slug: string }>`
    select t.slug from unnest(${[...new Set(bases)]}::text[]) as b(base)
    join ${sql.table(table)} t on (t.slug = b.base or (t.slug >= b.base || '-'
      and t.slug < b.base || '.' and t.slug ~ ('^' || b.base || '-[0-9]+$')))
    ${taxonomy === undefined ? sql`` : sql`where t.taxonomy = ${taxonomy}`}`.execute(db)
  const taken = new Set(rows.map((r) => r.slug))
  return bases.map((base) => {
    const slug = firstFreeSlug(base, taken)
    taken.add(slug)
    return slug
  })
}
