import {
  lockAllUntilCommit as lockAllTransaction,
  lockUntilCommit as lockTransaction,
} from '@kcore/db'
import { type Kysely, sql } from 'kysely'
import { CalValidationError } from './errors.js'
import type { ListResult, Page } from './page.js'
import type { CalSchema } from './schema.js'
import { firstFreeSlug } from './slug.js'

/** The typed Kysely instance (or open transaction) the repositories run on. */
export type CalDb = Kysely<CalSchema>

/** What every repository needs: the database, the clock and the data revision. */
export interface StoreContext {
  readonly db: CalDb
  readonly now: () => Date
  /**
   * The committed data revision (`cal_revision.n`), never older than the call; concurrent
   * callers share reads, and on PGlite it is kept until a commit moves it (`revisionReads`).
   */
  readonly revision: () => Promise<number>
}

/**
 * Most entries one list filter of a request takes (`include`, `venue`, `categories`, …); also
 * the largest page. Request input only: reads of stored relations are not limited by it.
 */
export const MAX_IDS = 10_000

/** `limit`/`offset` of a page with defaults (10, 0), made safe integers; `limit` ≤ {@link MAX_IDS}. */
export function pageOf(page: Page): { limit: number; offset: number } {
  const limit = Math.min(MAX_IDS, Math.max(1, Math.floor(page.limit ?? 10) || 1))
  const offset = Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.floor(page.offset ?? 0) || 0))
  return { limit, offset }
}

/** An empty list result. */
export function emptyList<T>(): ListResult<T> {
  return { items: [], total: 0 }
}

/**
 * Waits for, then holds until the end of the open transaction `db`, the lock named `key`: a
 * transaction-scoped advisory lock, so writers in every process sharing the database queue on
 * it. Check-then-insert code takes it before the check; the check then sees what the previous
 * holder committed.
 */
export function lockUntilCommit(db: CalDb, key: string): Promise<void> {
  return lockTransaction(db, key)
}

/** {@link lockUntilCommit} on every key of `keys`, in sorted order (`@kcore/db`). */
export function lockAllUntilCommit(db: CalDb, keys: Iterable<string>): Promise<void> {
  return lockAllTransaction(db, keys)
}

/**
 * The lock every write that changes the shape of a taxonomy's tree takes first: a term update
 * that sets a parent, a create under a parent, a delete (which moves the children up). The
 * ancestor walk reads many rows and relies on them at the update, so those writes run one at a
 * time; two moves that each look fine alone (A under B, B under A) cannot both commit.
 */
export function treeLockKey(taxonomy: string): string {
  return `cal:tree:${taxonomy}`
}

/** SQLSTATEs of transient conflicts the store retries: deadlock, serialization failure. */
const TRANSIENT = new Set(['40P01', '40001'])

/** Whether `error` (or its cause) is a transient conflict a retry of the transaction settles. */
export function isTransientConflict(error: unknown): boolean {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && TRANSIENT.has(code)) return true
    e = (e as { cause?: unknown }).cause
  }
  return false
}

/**
 * A conflict found by the store itself that a fresh run of the transaction settles (a record a
 * name resolved to was deleted before the write locked it); retried like a serialization failure.
 */
export class WriteConflict extends Error {
  readonly code = '40001'
  constructor(message: string) {
    super(message)
    this.name = 'WriteConflict'
  }
}

/** How many times {@link transact} runs a transaction that keeps losing conflicts. */
export const WRITE_ATTEMPTS = 6

/**
 * Runs `fn` in a transaction of `db`, again (from scratch, after a jittered pause that doubles
 * each time: 5–10 ms, 10–20 ms, …) when PostgreSQL aborts it as a deadlock victim or a
 * serialization failure, at most {@link WRITE_ATTEMPTS} times in all. The lock orders keep
 * these rare; the rest (a write holding an event that waits for a term a delete holds, while
 * the delete's cascade waits for that event) cannot be ordered away and end here, never in a 500.
 */
export async function transact<T>(db: CalDb, fn: (trx: CalDb) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(fn)
    } catch (error) {
      if (!isTransientConflict(error) || attempt >= WRITE_ATTEMPTS) throw error
      const base = 5 * 2 ** (attempt - 1)
      await new Promise((resolve) => setTimeout(resolve, base + Math.random() * base))
    }
  }
}

/** The slugged tables. */
export type SluggedTable = 'cal_event' | 'cal_venue' | 'cal_organizer' | 'cal_term'

/** The lock {@link allocateSlug} takes for `base` in `table` (within `taxonomy` for terms). */
export function slugLockKey(table: SluggedTable, base: string, taxonomy = ''): string {
  return `cal:slug:${table}:${taxonomy}:${base}`
}

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
 * up front with {@link lockAllUntilCommit}) and inserts with `on conflict do nothing`, taking
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

/** `''` and `undefined` become `null`; other strings stay. */
export function textOrNull(value: string | null | undefined): string | null {
  return value === undefined || value === null || value === '' ? null : value
}

/** Keeps the items of `rows` in the order of `ids` (missing ids skipped). */
export function inIdOrder<T extends { id: number }>(ids: readonly number[], rows: T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]))
  const out: T[] = []
  for (const id of ids) {
    const row = byId.get(id)
    if (row) out.push(row)
  }
  return out
}

/**
 * Distinct positive int4 values of `ids` (others dropped: they cannot be ids). No length limit:
 * internal reads (the relations of a page of events) take whatever writes stored; pass the
 * result to {@link idIn}, which binds it as one array parameter.
 */
export function validIds(ids: readonly number[]): number[] {
  return [...new Set(ids.filter((id) => Number.isSafeInteger(id) && id > 0 && id <= 2 ** 31 - 1))]
}

/**
 * {@link validIds} of ids a request names in the filter `field`: more than {@link MAX_IDS}
 * entries → `CalValidationError` on `field`. Only request input is limited this way, never
 * what a read loads for stored data.
 */
export function requestIds(ids: readonly number[], field: string): number[] {
  checkListLength(ids, field)
  return validIds(ids)
}

/**
 * `column = any($1::integer[])`: a set of ids as one bound array parameter, so a statement takes
 * any number of them (a list of bound values stops at PostgreSQL's 65,535 parameters).
 */
export function idIn(column: string, ids: readonly number[]) {
  return sql<boolean>`${sql.ref(column)} = any(${ids}::integer[])`
}

/** Throws `CalValidationError` on `field` when a list is longer than {@link MAX_IDS}. */
export function checkListLength(list: readonly unknown[] | undefined, field: string): void {
  if (list && list.length > MAX_IDS) {
    throw new CalValidationError(field, `at most ${MAX_IDS} entries at once`)
  }
}
