import { type RawBuilder, sql } from 'kysely'
import { checkDate } from './input-guard.js'

/** Incremental sync bounds, shared by the event, venue and organizer lists. */
export interface ModifiedFilter {
  /** Only records last modified strictly after this instant. */
  modified_after?: Date
  /** Only records last modified strictly before this instant. */
  modified_before?: Date
}

/**
 * The conditions of {@link ModifiedFilter} on `column` (a `modified` timestamptz). Strict, and
 * against the stored microseconds: a client that passes the newest `modified_utc` it saw (whole
 * seconds, rounded down) may get a record again but never misses one changed later.
 */
export function modifiedConditions(filter: ModifiedFilter, column: string): RawBuilder<boolean>[] {
  checkDate(filter.modified_after, 'modified_after')
  checkDate(filter.modified_before, 'modified_before')
  const out: RawBuilder<boolean>[] = []
  if (filter.modified_after) out.push(sql<boolean>`${sql.ref(column)} > ${filter.modified_after}`)
  if (filter.modified_before) out.push(sql<boolean>`${sql.ref(column)} < ${filter.modified_before}`)
  return out
}
