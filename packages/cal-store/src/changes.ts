import { type RawBuilder, sql } from 'kysely'
import { CalSyncTokenExpiredError, type FeedPosition } from './changes-token.js'
import type { CalChangeAction } from './record-change.js'
import type { PostStatus, RecordKind } from './status.js'
import type { CalDb } from './store-context.js'
import type { SignPosition } from './token-history.js'

/**
 * Whose view of the history a feed page is: `public` sees what anonymous callers may (records
 * while they are published; a record leaving `publish` is deleted for it), `all` what a token
 * holder may (every record until it is trashed or deleted).
 */
export type ChangesView = 'public' | 'all'

/** One record in a feed page: what happened to it last, seen from the page's view. */
export interface FeedChange {
  kind: RecordKind
  id: number
  action: CalChangeAction
  /** The record's `modified` stamp after the change (a term's: when it changed). */
  modified: Date
}

/** A page of the changes feed. */
export interface ChangesPage {
  /** Oldest first (by each record's latest change); each record at most once. */
  changes: FeedChange[]
  /** The token to follow from: every change up to the page's end is behind it. */
  nextSince: string
  /** True when changes after {@link nextSince} exist at the reader's revision. */
  more: boolean
}

/** What {@link CalReader.changes} takes. */
export interface ChangesQuery {
  /**
   * A token from a list answer (`X-CAL-Sync-Token`) or a page's `nextSince`; absent: start a
   * full sync ({@link readInitial}).
   */
  since?: string
  /** Records per page, 1–{@link MAX_CHANGES_PAGE}; default {@link DEFAULT_CHANGES_PAGE}. */
  limit?: number
  /** Default `public`. */
  view?: ChangesView
}

export const DEFAULT_CHANGES_PAGE = 100
export const MAX_CHANGES_PAGE = 500

/** One or more changes of one record, oldest status first: what {@link fold} folds. */
export interface ChangeRow {
  kind: RecordKind
  record_id: number
  before_status: PostStatus | null
  after_status: PostStatus | null
  modified: Date | string
}

/** One record's changes within one revision, as the database folds them. */
interface RevisionRow {
  revision: string
  kind: RecordKind
  record_id: number
  before_status: PostStatus | null
  after_status: PostStatus | null
  modified: Date | string
  purged_through: string
}

/** Whether a record in `status` (`null`: no such row) is visible in `view`. */
function visible(status: PostStatus | null, view: ChangesView): boolean {
  return view === 'public' ? status === 'publish' : status !== null && status !== 'trash'
}

/** The same rule in SQL, over a folded row's status column. */
function visibleSql(column: 'before_status' | 'after_status', view: ChangesView) {
  const c = sql.ref(column)
  return view === 'public' ? sql`${c} = 'publish'` : sql`coalesce(${c}, 'trash') <> 'trash'`
}

/**
 * The feed page after `position` up to revision `until` (the reader's). One statement, so the
 * history it reads and the retention mark it checks are of one snapshot: a purge racing the
 * read either happened before it (the token is expired) or did not touch what it reads.
 *
 * Pages hold up to `limit` per-revision changes in (revision, kind, id) order, folded per
 * record; a page may end inside a revision (the next token carries the last record it holds),
 * so a page never exceeds `limit` and nothing is skipped or repeated across pages.
 */
export async function readChanges(
  db: CalDb,
  sign: SignPosition,
  position: FeedPosition,
  until: number,
  limit: number,
  view: ChangesView,
  now: Date,
): Promise<ChangesPage> {
  const { revision, after } = position
  if (revision >= until && !after) {
    // Nothing committed after the token (a reader never lags a token it could have made).
    return {
      changes: [],
      nextSince: await sign({ revision: Math.max(revision, until) }, now),
      more: false,
    }
  }
  const from = after
    ? sql`(revision > ${revision} or (revision = ${revision}
        and (kind, record_id) > (${after.kind}, ${after.id})))`
    : sql`revision > ${revision}`
  const { rows } = await sql<RevisionRow>`
    with folded as (
      select revision, kind, record_id,
        (array_agg(before_status order by seq))[1] as before_status,
        (array_agg(after_status order by seq desc))[1] as after_status,
        (array_agg(modified order by seq desc))[1] as modified
      from cal_change
      where revision is not null and ${from} and revision <= ${until}
      group by revision, kind, record_id
      order by revision, kind, record_id),
    shown as (
      select * from folded
      where ${visibleSql('before_status', view)} or ${visibleSql('after_status', view)}
      limit ${limit + 1})
    select s.*, (select purged_through from cal_sync) as purged_through
    from (select 1) one left join shown s on true
    order by s.revision, s.kind, s.record_id`.execute(db)
  const purged = Number(rows[0]?.purged_through ?? 0)
  if (after ? revision <= purged : revision < purged) {
    throw new CalSyncTokenExpiredError('the changes since it are no longer kept')
  }
  const found = rows.filter((r) => r.revision !== null)
  const more = found.length > limit
  const page = found.slice(0, limit)
  const last = page.at(-1)
  let next: FeedPosition = { revision: Math.max(revision, until) }
  if (more && last) {
    const cutInside = found[limit]?.revision === last.revision
    next = cutInside
      ? { revision: Number(last.revision), after: { kind: last.kind, id: Number(last.record_id) } }
      : { revision: Number(last.revision) }
  }
  // The history after `next` was complete in this statement's snapshot: the token is new.
  return { changes: fold(page, view), nextSince: await sign(next, now), more }
}

/**
 * One entry per record: its status before its first change on the page and after its last
 * decide the action; a record neither visible before nor after (made and deleted on the page,
 * or never public) is left out. Ordered by each record's last change.
 */
export function fold(rows: readonly ChangeRow[], view: ChangesView): FeedChange[] {
  const byRecord = new Map<string, { first: ChangeRow; last: ChangeRow }>()
  for (const row of rows) {
    const key = `${row.kind}:${row.record_id}`
    const seen = byRecord.get(key)
    // Re-inserted, so the map's order is the order of each record's last change.
    byRecord.delete(key)
    byRecord.set(key, { first: seen?.first ?? row, last: row })
  }
  const changes: FeedChange[] = []
  for (const { first, last } of byRecord.values()) {
    const before = visible(first.before_status, view)
    const now = visible(last.after_status, view)
    if (!before && !now) continue
    changes.push({
      kind: last.kind,
      id: Number(last.record_id),
      action: before && now ? 'updated' : now ? 'created' : 'deleted',
      modified: new Date(last.modified),
    })
  }
  return changes
}

/** The database's token secret (`cal_sync`, made once by migration 0013). */
export async function querySyncSecret(db: CalDb): Promise<string> {
  const { rows } = await sql<{ secret: string }>`select secret from cal_sync`.execute(db)
  const secret = rows[0]?.secret
  if (!secret) throw new Error('cal_sync has no secret: run the calendar migrations')
  return secret
}

/** Kinds in the feed's order (kind, then id), each with the rows that hold its records. */
const RECORD_SOURCES: readonly {
  kind: RecordKind
  /** The table's rows of this kind that `view` may see, as (id, modified). */
  rows: (view: ChangesView) => RawBuilder<unknown>
}[] = [
  { kind: 'category', rows: () => termRows('cal_event_category') },
  // An edited occurrence under its public id; a series under its own (its first occurrence).
  { kind: 'event', rows: (view) => postRows('cal_event', view, sql`coalesce(occurrence_id, id)`) },
  { kind: 'organizer', rows: (view) => postRows('cal_organizer', view) },
  { kind: 'tag', rows: () => termRows('cal_event_tag') },
  { kind: 'venue', rows: (view) => postRows('cal_venue', view) },
]

function postRows(table: string, view: ChangesView, id = sql`id`) {
  const shown = view === 'public' ? sql`status = 'publish'` : sql`status <> 'trash'`
  return sql`select ${id} as id, modified from ${sql.table(table)} where ${shown}`
}

/** A term has no stamp of its own: a full sync gives it the time of the read. */
function termRows(taxonomy: string) {
  return sql`select id, now() as modified from cal_term where taxonomy = ${taxonomy}`
}

/**
 * A page of a full sync pinned at revision `position.revision` (r0): every record `view` could
 * see at r0 after `position.after` in (kind, id) order, as `created`, by key, never by offset,
 * so a record is listed exactly once whatever is written meanwhile. One statement reads the
 * live tables and the feed's history after r0 together: a record no change touched since r0 is
 * listed as it is; one that changed is listed when its status before its first change since r0
 * (its status at r0) was visible, so a record made during the sync is not listed (the feed
 * reports it) and one deleted during the sync still is (the feed reports its deletion). After
 * the last page, `nextSince` is the feed's token at r0: every change after r0 comes through the
 * feed, and nothing the sync listed comes again as new. A record changed since r0 is listed
 * with `modified` = r0's time (`issued`: its stamp at r0 is not kept), a term with the read's.
 * `issued` is kept by every cursor, so the final token is as old as its revision.
 */
export async function readInitial(
  db: CalDb,
  sign: SignPosition,
  position: FeedPosition,
  until: number,
  limit: number,
  view: ChangesView,
  issued: Date,
): Promise<ChangesPage> {
  const { revision, after } = position
  const from = after ? RECORD_SOURCES.findIndex((s) => s.kind === after.kind) : 0
  const then = sql`${issued.toISOString()}::timestamptz`
  // Each kind from the cursor's on, by its key, at most one page plus one each.
  const parts = RECORD_SOURCES.slice(from).map(({ kind, rows }) => {
    const past = after?.kind === kind ? sql`where id > ${after.id}` : sql``
    return sql`(select ${kind}::text as kind, id, modified from (
        select r.id::bigint as id, r.modified from (${rows(view)}) r
        where not exists (select 1 from later l where l.kind = ${kind} and l.record_id = r.id)
        union all
        select l.record_id, ${then} from later l
        where l.kind = ${kind} and ${visibleSql('before_status', view)}
      ) at_r0 ${past} order by id limit ${limit + 1})`
  })
  const { rows } = await sql<{
    kind: RecordKind | null
    id: number | null
    modified: Date | string | null
    purged_through: string
  }>`
    with later as (
      select distinct on (kind, record_id) kind, record_id, before_status from cal_change
      where revision > ${revision} order by kind, record_id, revision, seq),
    page as (
      select * from (${sql.join(parts, sql` union all `)}) p order by kind, id limit ${limit + 1})
    select page.*, (select purged_through from cal_sync) as purged_through
    from (select 1) one left join page on true
    order by page.kind, page.id`.execute(db)
  // The history since r0 is what turns the live tables back into r0's records.
  if (revision < Number(rows[0]?.purged_through ?? 0)) {
    throw new CalSyncTokenExpiredError('the changes since the sync began are no longer kept')
  }
  const found = rows.filter(
    (r): r is { kind: RecordKind; id: number; modified: Date | string; purged_through: string } =>
      r.kind !== null,
  )
  const page = found.slice(0, limit)
  const last = page.at(-1)
  const more = found.length > limit
  const next: FeedPosition =
    more && last
      ? { revision, initial: true, after: { kind: last.kind, id: Number(last.id) } }
      : { revision }
  return {
    changes: page.map((r) => ({
      kind: r.kind,
      id: Number(r.id),
      action: 'created',
      modified: new Date(r.modified),
    })),
    nextSince: await sign(next, issued),
    // Done listing: more is whether revisions after r0 exist (their changes may not be shown).
    more: more || until > revision,
  }
}
