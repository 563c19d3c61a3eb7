import { type Kysely, sql } from 'kysely'
import { type ChangeRow, fold } from './changes.js'
import type { CalChange } from './record-change.js'
import type { CalDb } from './store-context.js'

/** One record's change in one committed revision (one write), as a token holder sees it. */
export interface CommittedChange extends CalChange {
  /** The revision the write committed as: the order of commits. */
  revision: number
  /** The record's `modified` stamp after the change (a term's: when it changed). */
  modified: Date
  /** When the database wrote the change (its clock, not the store's). */
  at: Date
}

/** What {@link readCommittedChanges} read. */
export interface CommittedChanges {
  /** Oldest revision first; within one, by kind and id. */
  changes: CommittedChange[]
  /** The last revision read in full: where the next read starts. */
  through: number
  /** True when the read stopped at `revisions`: more may follow `through`. */
  more: boolean
}

/**
 * The changes committed after revision `after`, whole revisions only, the first `revisions` of
 * them (`through`: the last one read, else `after`). One record's changes in one revision are
 * folded as the feed folds them for a token holder: created (or made visible again), deleted
 * (trashed, deleted), else updated; one made and deleted in the same write is left out.
 *
 * Revisions are numbered at commit under one row lock, so a revision read here means every
 * earlier one has committed: a follower that keeps `through` misses nothing and sees nothing
 * twice. What is kept is the feed's history (its retention trims it).
 */
export async function readCommittedChanges(
  db: CalDb,
  after: number,
  revisions: number,
): Promise<CommittedChanges> {
  // A limit below 1 would read nothing and still say `more` (a follower would spin).
  if (!(Number.isSafeInteger(after) && after >= 0)) throw new RangeError('after: a revision >= 0')
  if (!(Number.isSafeInteger(revisions) && revisions >= 1)) {
    throw new RangeError('revisions: an integer >= 1')
  }
  const { rows } = await sql<ChangeRow & { revision: string; at: Date | string; due: number }>`
    with due as (
      select distinct revision from cal_change
      where revision > ${after} order by revision limit ${revisions})
    select c.revision, c.kind, c.record_id,
      (array_agg(c.before_status order by c.seq))[1] as before_status,
      (array_agg(c.after_status order by c.seq desc))[1] as after_status,
      (array_agg(c.modified order by c.seq desc))[1] as modified,
      max(c.at) as at, (select count(*) from due)::int as due
    from cal_change c join due on due.revision = c.revision
    group by c.revision, c.kind, c.record_id
    order by c.revision, c.kind, c.record_id`.execute(db)
  const changes: CommittedChange[] = []
  let through = after
  for (const row of rows) {
    const revision = Number(row.revision)
    through = revision
    for (const { kind, id, action, modified } of fold([row], 'all'))
      changes.push({ kind, id, action, modified, at: new Date(row.at), revision })
  }
  return { changes, through, more: (rows[0]?.due ?? 0) >= revisions }
}
