import type { SluggedTable } from './schema.js'

// The names of the transaction-scoped advisory locks writers take (`lockUntilCommit` and
// `lockAllUntilCommit` of `@kcore/db`), in one place so two kinds of lock never share a name.
// Writers in every process sharing the database queue on them: check-then-insert code takes
// its lock before the check, which then sees what the previous holder committed.

/**
 * The lock every write that changes the shape of a taxonomy's tree takes first: a term update
 * that sets a parent, a create under a parent, a delete (which moves the children up). The
 * ancestor walk reads many rows and relies on them at the update, so those writes run one at a
 * time; two moves that each look fine alone (A under B, B under A) cannot both commit.
 */
export function treeLockKey(taxonomy: string): string {
  return `cal:tree:${taxonomy}`
}

/** The lock `allocateSlug` (`slug-allocation.ts`) takes for `base` in `table` (within `taxonomy` for terms). */
export function slugLockKey(table: SluggedTable, base: string, taxonomy = ''): string {
  return `cal:slug:${table}:${taxonomy}:${base}`
}
