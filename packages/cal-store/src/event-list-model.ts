import { LRUCache } from 'lru-cache'
import { type RawBuilder, sql } from 'kysely'
import { CalUnknownReferenceError } from './errors.js'
import type { EventIdIndex } from './event-list.js'
import type { DateBound, EventListPlan, TermResolver } from './event-list-plan.js'
import { type CalDb, MAX_IDS, validIds } from './store-context.js'
import type { Taxonomy } from './term.js'

/** Settings of the in-memory event list model (`createCalStore({ listModel })`). */
export interface ListModelOptions {
  /** Most events the model holds; a larger calendar lists by SQL alone. Default 1,000,000. */
  maxEvents?: number
}

/** An instant as the model keeps it: whole milliseconds since 1970 and the microseconds past. */
const instant = (column: 'start_utc' | 'end_utc'): [RawBuilder<number>, RawBuilder<number>] => {
  const ref = sql.ref(column)
  // numeric arithmetic: exact over every storable year, unlike float8 microseconds.
  return [
    sql<number>`floor(extract(epoch from ${ref}) * 1000)::float8`,
    sql<number>`(extract(epoch from ${ref}) * 1000000 - floor(extract(epoch from ${ref}) * 1000) * 1000)::int`,
  ]
}
const [START_MS, START_US] = instant('start_utc')
const [END_MS, END_US] = instant('end_utc')

const HIDDEN = 1
const FEATURED = 2
const TICKETED = 4
const STICKY = 8
const PROTECTED = 16

/** Changes past this many events reload the whole model (one scan beats many id lists). */
const RELOAD_ABOVE = MAX_IDS

interface TermRow {
  id: number
  taxonomy: Taxonomy
  slug: string
  parent_id: number | null
}

type EventListRow = Awaited<ReturnType<typeof selectRows>>[number]

function selectRows(db: CalDb, ids?: number[]) {
  let q = db
    .selectFrom('cal_event')
    .select([
      'id',
      'status',
      'hide_from_listings',
      'featured',
      'ticketed',
      'sticky',
      'post_parent',
      'venue_id',
      'term_ids',
      'search_text',
      START_MS.as('start_ms'),
      START_US.as('start_us'),
      END_MS.as('end_ms'),
      END_US.as('end_us'),
      sql<boolean>`password_hash is not null`.as('protected'),
    ])
  if (ids) q = q.where('id', 'in', ids)
  return q.execute()
}

/** Which of `<`, `<=`, `>`, `>=` holds for a comparison result `c` (negative: less). */
function holds(op: DateBound['op'], c: number): boolean {
  switch (op) {
    case '<':
      return c < 0
    case '<=':
      return c <= 0
    case '>':
      return c > 0
    default:
      return c >= 0
  }
}

/**
 * The events' list columns in slots (struct of arrays), plus the live slots in list order
 * (start, then id). Written only by {@link Columns.apply}, which runs between scans.
 */
class Columns {
  readonly id: number[] = []
  readonly startMs: number[] = []
  readonly startUs: number[] = []
  readonly endMs: number[] = []
  readonly endUs: number[] = []
  readonly status: string[] = []
  readonly flags: number[] = []
  readonly postParent: (number | null)[] = []
  readonly venue: (number | null)[] = []
  readonly terms: number[][] = []
  readonly text: string[] = []
  readonly slotOf = new Map<number, number>()
  private readonly free: number[] = []
  /** Live slots in list order. */
  order = new Int32Array(0)
  /** At least the longest duration in ms (kept as an upper bound on deletes). */
  maxDurationMs = 0

  get size(): number {
    return this.order.length
  }

  /** Puts `rows` in and takes out each id of `changed` that `rows` lacks (deleted). */
  apply(changed: Iterable<number>, rows: readonly EventListRow[]): void {
    const moved = new Set<number>()
    const found = new Set(rows.map((r) => r.id))
    for (const id of changed) {
      const slot = this.slotOf.get(id)
      if (slot === undefined) continue
      moved.add(slot)
      if (!found.has(id)) {
        this.slotOf.delete(id)
        this.terms[slot] = []
        this.text[slot] = ''
        this.free.push(slot)
      }
    }
    const placed: number[] = []
    for (const row of rows) {
      let slot = this.slotOf.get(row.id)
      if (slot === undefined) {
        slot = this.free.pop() ?? this.id.length
        this.slotOf.set(row.id, slot)
      }
      moved.add(slot)
      placed.push(slot)
      this.write(slot, row)
    }
    const kept = this.order.filter((slot) => !moved.has(slot))
    placed.sort((a, b) => this.compare(a, b))
    const order = new Int32Array(kept.length + placed.length)
    let i = 0
    let j = 0
    let k = 0
    while (i < kept.length && j < placed.length) {
      order[k++] = this.compare(kept[i] as number, placed[j] as number) <= 0 ? kept[i++]! : placed[j++]!
    }
    while (i < kept.length) order[k++] = kept[i++]!
    while (j < placed.length) order[k++] = placed[j++]!
    this.order = order
  }

  private write(slot: number, row: EventListRow): void {
    this.id[slot] = row.id
    this.startMs[slot] = Number(row.start_ms)
    this.startUs[slot] = Number(row.start_us)
    this.endMs[slot] = Number(row.end_ms)
    this.endUs[slot] = Number(row.end_us)
    this.status[slot] = row.status
    this.flags[slot] =
      (row.hide_from_listings ? HIDDEN : 0) |
      (row.featured ? FEATURED : 0) |
      (row.ticketed ? TICKETED : 0) |
      (row.sticky ? STICKY : 0) |
      (row.protected ? PROTECTED : 0)
    this.postParent[slot] = row.post_parent
    this.venue[slot] = row.venue_id
    this.terms[slot] = row.term_ids
    this.text[slot] = row.search_text
    const duration = Number(row.end_ms) - Number(row.start_ms) + 1
    if (duration > this.maxDurationMs) this.maxDurationMs = duration
  }

  /** List order: start (ms, then µs), then id. */
  private compare(a: number, b: number): number {
    return (
      (this.startMs[a] as number) - (this.startMs[b] as number) ||
      (this.startUs[a] as number) - (this.startUs[b] as number) ||
      (this.id[a] as number) - (this.id[b] as number)
    )
  }

  /** First position in list order whose start is at or after `ms` + `us` microseconds. */
  firstStartingAt(ms: number, us: number): number {
    let lo = 0
    let hi = this.order.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const slot = this.order[mid] as number
      const c = (this.startMs[slot] as number) - ms || (this.startUs[slot] as number) - us
      if (c < 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

/** Categories and tags as the model resolves filter refs against them. */
class Terms implements TermResolver {
  private readonly byId = new Map<number, TermRow>()
  private readonly bySlug = new Map<string, TermRow>()
  private readonly children = new Map<number, number[]>()

  constructor(rows: readonly TermRow[]) {
    for (const row of rows) {
      this.byId.set(row.id, row)
      this.bySlug.set(`${row.taxonomy}\u0000${row.slug}`, row)
      if (row.parent_id !== null) {
        const list = this.children.get(row.parent_id) ?? []
        list.push(row.id)
        this.children.set(row.parent_id, list)
      }
    }
  }

  async resolve(taxonomy: Taxonomy, field: string, refs: readonly (number | string)[]) {
    const valid = new Set(validIds(refs.filter((r): r is number => typeof r === 'number')))
    const ids = new Set<number>()
    for (const ref of refs) {
      const row =
        typeof ref === 'number'
          ? valid.has(ref)
            ? this.byId.get(ref)
            : undefined
          : this.bySlug.get(`${taxonomy}\u0000${ref}`)
      if (!row || row.taxonomy !== taxonomy) throw new CalUnknownReferenceError(field, ref)
      ids.add(row.id)
    }
    return [...ids]
  }

  async withDescendants(ids: number[]) {
    // A set of visited ids: the walk ends even if a parent cycle slipped into the tree.
    const found = new Set(ids.filter((id) => this.byId.has(id)))
    const queue = [...found]
    for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
      for (const child of this.children.get(id) ?? []) {
        if (!found.has(child)) {
          found.add(child)
          queue.push(child)
        }
      }
    }
    return [...found]
  }
}

/** What the model is at one revision: columns, terms, and how to scan them. */
interface Loaded {
  revision: number
  columns: Columns
  terms: Terms
}

/**
 * An {@link EventIdIndex} over every event's list columns in memory, kept at the data revision
 * (`cal_revision`, moved by every committed write in any process): each list reads the
 * revision (one single-row query) and, when it moved, applies the events the change log
 * (migration 0011) names for the revisions in between, or reloads everything when the log no
 * longer reaches back that far. The first list waits for the first load (concurrent ones
 * share it). Lists it cannot serve (organizer, geo and `modified` filters, a calendar over
 * `maxEvents`) go to SQL. Search words are lowered by the database (`lower()` follows its
 * locale), once per word.
 */
export function createEventListModel(db: CalDb, options: ListModelOptions = {}): EventIdIndex {
  const maxEvents = Math.max(0, options.maxEvents ?? 1_000_000)
  let loaded: Loaded | undefined
  /** Revision at which the calendar was found too large to hold. */
  let tooLargeAt: number | undefined
  const lowered = new LRUCache<string, string>({ max: 10_000 })

  const readRevision = async () =>
    Number((await db.selectFrom('cal_revision').select('n').executeTakeFirstOrThrow()).n)

  const readTerms = async () =>
    new Terms(
      await db.selectFrom('cal_term').select(['id', 'taxonomy', 'slug', 'parent_id']).execute(),
    )

  async function loadAll(): Promise<void> {
    const revision = await readRevision()
    const { n } = await db
      .selectFrom('cal_event')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    if (Number(n) > maxEvents) {
      loaded = undefined
      tooLargeAt = revision
      return
    }
    const columns = new Columns()
    const [rows, terms] = await Promise.all([selectRows(db), readTerms()])
    columns.apply([], rows)
    tooLargeAt = undefined
    if (!loaded || loaded.revision <= revision) loaded = { revision, columns, terms }
  }

  /** Brings `model` forward to at least `target` through the change log. */
  async function catchUp(model: Loaded, target: number): Promise<void> {
    const log = await db
      .selectFrom('cal_revision_log as l')
      .leftJoin('cal_event_change as c', 'c.xid', 'l.xid')
      .select(['l.revision', 'c.event_id', sql<boolean>`c.xid is not null`.as('noted')])
      .where('l.revision', '>', model.revision)
      .execute()
    const revisions = new Set(log.map((r) => Number(r.revision)))
    const newest = Math.max(target, ...revisions)
    const changed = new Set<number>()
    let complete = true
    for (let r = model.revision + 1; r <= newest; r++) if (!revisions.has(r)) complete = false
    for (const entry of log) {
      if (entry.noted && entry.event_id === null) complete = false
      else if (entry.event_id !== null) changed.add(entry.event_id)
    }
    if (!complete || changed.size > RELOAD_ABOVE || model.columns.size + changed.size > maxEvents) {
      return loadAll()
    }
    const ids = [...changed]
    const [rows, terms] = await Promise.all([
      ids.length ? selectRows(db, ids) : [],
      readTerms(),
    ])
    if (loaded !== model || model.revision >= newest) return
    model.columns.apply(ids, rows)
    loaded = { revision: newest, columns: model.columns, terms }
  }

  async function lowerWords(words: readonly string[]): Promise<string[]> {
    const missing = words.filter((w) => !lowered.has(w))
    if (missing.length) {
      const { rows } = await sql<{ word: string; low: string }>`
        select w as word, lower(w) as low from unnest(${missing}::text[]) as w`.execute(db)
      for (const row of rows) lowered.set(row.word, row.low)
    }
    return words.map((w) => lowered.get(w) ?? w.toLowerCase())
  }

  function scan(columns: Columns, plan: EventListPlan, words: readonly string[]) {
    const c = columns
    let lo = 0
    let hi = c.size
    const endBounds: DateBound[] = []
    for (const bound of plan.dates) {
      const ms = bound.at.getTime()
      if (bound.column === 'end') endBounds.push(bound)
      else if (bound.op === '>=') lo = Math.max(lo, c.firstStartingAt(ms, 0))
      else if (bound.op === '>') lo = Math.max(lo, c.firstStartingAt(ms, 1))
      else if (bound.op === '<=') hi = Math.min(hi, c.firstStartingAt(ms, 1))
      else hi = Math.min(hi, c.firstStartingAt(ms, 0))
    }
    if (plan.endsFrom) {
      lo = Math.max(lo, c.firstStartingAt(plan.endsFrom.getTime() - c.maxDurationMs - 1, 0))
    }
    const include = plan.include && new Set(plan.include)
    const venues = plan.venues && new Set(plan.venues)
    const termSets = plan.termSets.map((ids) => new Set(ids))
    const statuses = new Set<string>(plan.statuses)
    let mustNot = 0
    let must = 0
    if (plan.excludeHidden) mustNot |= HIDDEN
    if (plan.publicOnly) mustNot |= PROTECTED
    if (plan.featured !== undefined) plan.featured ? (must |= FEATURED) : (mustNot |= FEATURED)
    if (plan.ticketed !== undefined) plan.ticketed ? (must |= TICKETED) : (mustNot |= TICKETED)
    const matched: number[] = []
    next: for (let p = lo; p < hi; p++) {
      const slot = c.order[p] as number
      const flags = c.flags[slot] as number
      if ((flags & mustNot) !== 0 || (flags & must) !== must) continue
      if (!statuses.has(c.status[slot] as string)) continue
      for (const { op, at } of endBounds) {
        const diff = (c.endMs[slot] as number) - at.getTime() || (c.endUs[slot] as number)
        if (!holds(op, diff)) continue next
      }
      if (include && !include.has(c.id[slot] as number)) continue
      if (venues && !venues.has(c.venue[slot] as number)) continue
      if (plan.postParent !== undefined && c.postParent[slot] !== plan.postParent) continue
      for (const set of termSets) {
        if (!(c.terms[slot] as number[]).some((t) => set.has(t))) continue next
      }
      for (const word of words) if (!(c.text[slot] as string).includes(word)) continue next
      matched.push(slot)
    }
    const listed = plan.stickyFirst
      ? [
          ...matched.filter((s) => (c.flags[s] as number) & STICKY),
          ...matched.filter((s) => !((c.flags[s] as number) & STICKY)),
        ]
      : matched
    return {
      ids: listed.slice(plan.offset, plan.offset + plan.limit).map((s) => c.id[s] as number),
      total: matched.length,
    }
  }

  /** The one load or catch-up in flight: concurrent lists wait for it together. */
  let pending: Promise<void> | undefined

  return {
    async current() {
      const revision = await readRevision()
      for (;;) {
        const model = loaded
        if (!model && tooLargeAt !== undefined && revision <= tooLargeAt) return undefined
        if (model && model.revision >= revision) {
          return {
            terms: model.terms,
            async list(plan) {
              const { organizers, geo, modified } = plan
              if (organizers || geo || modified.modified_after || modified.modified_before) {
                return undefined
              }
              const words = await lowerWords(plan.words)
              // The words' round trip may have let a catch-up in: scan what is there now.
              return scan((loaded ?? model).columns, plan, words)
            },
          }
        }
        pending ??= (model ? catchUp(model, revision) : loadAll()).finally(() => {
          pending = undefined
        })
        await pending
      }
    },
  }
}

