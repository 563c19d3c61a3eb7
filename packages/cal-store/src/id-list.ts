import { sql } from 'kysely'
import { CalValidationError } from './errors.js'

/**
 * Most entries one list filter of a request takes (`include`, `venue`, `categories`, …); also
 * the largest page. Request input only: reads of stored relations are not limited by it.
 */
export const MAX_IDS = 10_000

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

/** Throws `CalValidationError` on `field` when a list is longer than {@link MAX_IDS}. */
export function checkListLength(list: readonly unknown[] | undefined, field: string): void {
  if (list && list.length > MAX_IDS) {
    throw new CalValidationError(field, `at most ${MAX_IDS} entries at once`)
  }
}

/**
 * `column = any($1::integer[])`: a set of ids as one bound array parameter, so a statement takes
 * any number of them (a list of bound values stops at PostgreSQL's 65,535 parameters).
 */
export function idIn(column: string, ids: readonly number[]) {
  return sql<boolean>`${sql.ref(column)} = any(${ids}::integer[])`
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
