import { type RawBuilder, sql } from 'kysely'
import { LRUCache } from 'lru-cache'
import { CalUnknownReferenceError } from './errors.js'
import type { EventIdIndex, IdPage } from './event-list.js'
import type { EventListPlan, TermResolver } from './event-list-plan.js'
import { POST_STATUSES } from './status.js'
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

/** Growable typed columns: `at(i)` reads, `set(i, v)` writes, growing by doubling. */
function growable<A extends Float64Array | Int32Array | Uint8Array>(make: (n: number) => A) {
  let data = make(1024)
  return {
    get data(): A {
      return data
    },
    set(i: number, value: number): void {
      if (i >= data.length) {
        const next = make(Math.max(i + 1, data.length * 2))
        next.set(data)
        data = next
      }
      data[i] = value
    },
  }
}

/**
 * An event's end as one number comparable with a bound in whole milliseconds (the API's
 * instants): its millisecond, plus one half when microseconds lie past it. Then `end > at`
 * is `key > at` and so on for every operator, in one float comparison.
 */
const endKey = (ms: number, us: number) => (us > 0 ? ms + 0.5 : ms)

/**
 * The events' list columns in slots (struct of typed arrays), plus the live slots in list
 * order (start, then id). Written only by {@link Columns.apply}, which runs between scans.
 */
class Columns {
  readonly id = growable((n) => new Int32Array(n))
  readonly startMs = growable((n) => new Float64Array(n))
  readonly startUs = growable((n) => new Int32Array(n))
  readonly end = growable((n) => new Float64Array(n))
  readonly status = growable((n) => new Uint8Array(n))
  readonly flags = growable((n) => new Uint8Array(n))
  /** NaN for none. */
  readonly postParent = growable((n) => new Float64Array(n))
  /** 0 for none (ids are positive). */
  readonly venue = growable((n) => new Int32Array(n))
  /** Each slot's term ids: `termCount` of them from `termStart` in the shared `termPool`. */
  readonly termStart = growable((n) => new Int32Array(n))
  readonly termCount = growable((n) => new Int32Array(n))
  termPool = growable((n) => new Int32Array(n))
  private termPoolUsed = 0
  private termsLive = 0
  readonly text: string[] = []
  /**
   * Slot sets (a bit per slot) of recently asked words and terms, with the test that decides
   * a slot's bit; {@link Columns.apply} re-tests the slots it changes, so they stay exact.
   */
  private readonly slotSets = new LRUCache<string, { bits: Uint32Array; test: SlotTest }>({
    max: SLOT_SETS,
  })
  readonly slotOf = new Map<number, number>()
  private readonly free: number[] = []
  private slots = 0
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
        this.termsLive -= this.termCount.data[slot] as number
        this.termCount.set(slot, 0)
        this.text[slot] = ''
        this.free.push(slot)
      }
    }
    const placed: number[] = []
    for (const row of rows) {
      let slot = this.slotOf.get(row.id)
      if (slot === undefined) {
        slot = this.free.pop() ?? this.slots++
        this.slotOf.set(row.id, slot)
      }
      moved.add(slot)
      placed.push(slot)
      this.write(slot, row)
    }
    for (const entry of this.slotSets.values()) {
      entry.bits = this.fitted(entry.bits)
      for (const slot of moved) setBit(entry.bits, slot, entry.test(slot))
    }
    if (this.termPoolUsed > 2 * this.termsLive + 4096) this.compactTerms()
    const kept = this.order.filter((slot) => !moved.has(slot))
    placed.sort((a, b) => this.compare(a, b))
    const order = new Int32Array(kept.length + placed.length)
    let i = 0
    let j = 0
    let k = 0
    while (i < kept.length && j < placed.length) {
      const a = kept[i] as number
      const b = placed[j] as number
      if (this.compare(a, b) <= 0) {
        order[k++] = a
        i++
      } else {
        order[k++] = b
        j++
      }
    }
    order.set(kept.subarray(i), k)
    order.set(placed.slice(j), k + kept.length - i)
    this.order = order
  }

  private write(slot: number, row: EventListRow): void {
    const startMs = Number(row.start_ms)
    const endMs = Number(row.end_ms)
    this.id.set(slot, row.id)
    this.startMs.set(slot, startMs)
    this.startUs.set(slot, Number(row.start_us))
    this.end.set(slot, endKey(endMs, Number(row.end_us)))
    this.status.set(slot, STATUS_CODE.get(row.status) ?? 255)
    this.flags.set(
      slot,
      (row.hide_from_listings ? HIDDEN : 0) |
        (row.featured ? FEATURED : 0) |
        (row.ticketed ? TICKETED : 0) |
        (row.sticky ? STICKY : 0) |
        (row.protected ? PROTECTED : 0),
    )
    this.postParent.set(slot, row.post_parent ?? Number.NaN)
    this.venue.set(slot, row.venue_id ?? 0)
    this.termsLive += row.term_ids.length - (this.termCount.data[slot] ?? 0)
    this.termStart.set(slot, this.termPoolUsed)
    this.termCount.set(slot, row.term_ids.length)
    for (const id of row.term_ids) this.termPool.set(this.termPoolUsed++, id)
    this.text[slot] = row.search_text
    const duration = endMs - startMs + 1
    if (duration > this.maxDurationMs) this.maxDurationMs = duration
  }

  /** Rewrites the term pool without the lists of replaced and deleted events. */
  private compactTerms(): void {
    const pool = growable((n) => new Int32Array(n))
    let used = 0
    for (const slot of this.slotOf.values()) {
      const start = this.termStart.data[slot] as number
      const count = this.termCount.data[slot] as number
      this.termStart.set(slot, used)
      for (let i = 0; i < count; i++) pool.set(used++, this.termPool.data[start + i] as number)
    }
    this.termPool = pool
    this.termPoolUsed = used
  }

  /** `bits` with room for every slot (a copy when it had to grow). */
  private fitted(bits: Uint32Array): Uint32Array {
    const words = (this.slots >>> 5) + 1
    if (bits.length >= words) return bits
    const wide = new Uint32Array(words * 2)
    wide.set(bits)
    return wide
  }

  /** Words of a bit set covering every slot. */
  get setWords(): number {
    return (this.slots >>> 5) + 1
  }

  private slotSet(key: string, test: SlotTest): Uint32Array {
    let entry = this.slotSets.get(key)
    if (!entry) {
      entry = { bits: new Uint32Array(this.setWords), test }
      for (const slot of this.slotOf.values()) if (test(slot)) setBit(entry.bits, slot, true)
      this.slotSets.set(key, entry)
    }
    return entry.bits
  }

  /** The slots whose search text contains `word`. */
  slotsContaining(word: string): Uint32Array {
    return this.slotSet(`w:${word}`, (slot) => (this.text[slot] as string).includes(word))
  }

  /** The slots of events carrying term `id`. */
  slotsWithTerm(id: number): Uint32Array {
    return this.slotSet(`t:${id}`, (slot) => {
      const start = this.termStart.data[slot] as number
      const end = start + (this.termCount.data[slot] as number)
      for (let t = start; t < end; t++) if (this.termPool.data[t] === id) return true
      return false
    })
  }

  /** List order: start (ms, then µs), then id. */
  private compare(a: number, b: number): number {
    const ms = this.startMs.data
    const us = this.startUs.data
    const id = this.id.data
    return (
      (ms[a] as number) - (ms[b] as number) ||
      (us[a] as number) - (us[b] as number) ||
      (id[a] as number) - (id[b] as number)
    )
  }

  /** First position in list order whose start is at or after `ms` + `us` microseconds. */
  firstStartingAt(ms: number, us: number): number {
    const startMs = this.startMs.data
    const startUs = this.startUs.data
    let lo = 0
    let hi = this.order.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const slot = this.order[mid] as number
      const c = (startMs[slot] as number) - ms || (startUs[slot] as number) - us
      if (c < 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

/** Most word and term slot sets kept (each a bit per event: 12.5 kB per 100k events). */
const SLOT_SETS = 512

/** Term sets larger than this are tested per event instead of through slot sets. */
const SET_TERMS = 32

type SlotTest = (slot: number) => boolean

/** Sets or clears bit `i` of `bits`. */
function setBit(bits: Uint32Array, i: number, on: boolean): void {
  const mask = 1 << (i & 31)
  const w = i >>> 5
  bits[w] = on ? (bits[w] as number) | mask : (bits[w] as number) & ~mask
}

const hasBit = (bits: Uint32Array, i: number) => ((bits[i >>> 5] as number) & (1 << (i & 31))) !== 0

/**
 * Term ids as a lookup table (one byte per id up to the largest), or a set when an id is too
 * large for a table.
 */
function termLookup(ids: readonly number[]): (id: number) => boolean {
  const max = Math.max(0, ...ids)
  if (max > 1 << 22) {
    const set = new Set(ids)
    return (id) => set.has(id)
  }
  const table = new Uint8Array(max + 1)
  for (const id of ids) table[id] = 1
  return (id) => table[id] === 1
}
const STATUS_CODE = new Map(POST_STATUSES.map((s, i) => [s, i]))

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
export function createEventListModel(
  db: CalDb,
  readRevision: () => Promise<number>,
  options: ListModelOptions = {},
): EventIdIndex {
  const maxEvents = Math.max(0, options.maxEvents ?? 1_000_000)
  let loaded: Loaded | undefined
  /** Revision at which the calendar was found too large to hold. */
  let tooLargeAt: number | undefined
  const lowered = new LRUCache<string, string>({ max: 10_000 })

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
    const [rows, terms] = await Promise.all([ids.length ? selectRows(db, ids) : [], readTerms()])
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

  function scan(columns: Columns, plan: EventListPlan, words: readonly string[]): IdPage {
    const c = columns
    let lo = 0
    let hi = c.size
    // Start bounds narrow the range of positions; end bounds become one interval of end keys.
    let endMin = Number.NEGATIVE_INFINITY
    let endMinOpen = false
    let endMax = Number.POSITIVE_INFINITY
    let endMaxOpen = false
    for (const { column, op, at } of plan.dates) {
      const ms = at.getTime()
      if (column === 'start') {
        if (op === '>=') lo = Math.max(lo, c.firstStartingAt(ms, 0))
        else if (op === '>') lo = Math.max(lo, c.firstStartingAt(ms, 1))
        else if (op === '<=') hi = Math.min(hi, c.firstStartingAt(ms, 1))
        else hi = Math.min(hi, c.firstStartingAt(ms, 0))
      } else if (op === '>=' || op === '>') {
        if (ms > endMin || (ms === endMin && op === '>')) {
          endMin = ms
          endMinOpen = op === '>'
        }
      } else if (ms < endMax || (ms === endMax && op === '<')) {
        endMax = ms
        endMaxOpen = op === '<'
      }
    }
    if (plan.endsFrom) {
      lo = Math.max(lo, c.firstStartingAt(plan.endsFrom.getTime() - c.maxDurationMs - 1, 0))
    }
    const include = plan.include && new Set(plan.include)
    const venues = plan.venues && new Set(plan.venues)
    // Words and small term sets become one mask of slots (a few thousand word operations);
    // large term sets are looked up per candidate.
    let mask: Uint32Array | undefined
    const narrow = (bits: Uint32Array) => {
      if (!mask) mask = bits.slice(0, c.setWords)
      else for (let w = 0; w < mask.length; w++) mask[w] = (mask[w] as number) & (bits[w] as number)
    }
    for (const word of words) narrow(c.slotsContaining(word))
    const termSets: ((id: number) => boolean)[] = []
    for (const ids of plan.termSets) {
      if (ids.length > SET_TERMS) {
        termSets.push(termLookup(ids))
        continue
      }
      const any = new Uint32Array(c.setWords)
      for (const id of ids) {
        const bits = c.slotsWithTerm(id)
        for (let w = 0; w < any.length; w++) any[w] = (any[w] as number) | (bits[w] as number)
      }
      narrow(any)
    }
    let statusMask = 0
    for (const s of plan.statuses) statusMask |= 1 << (STATUS_CODE.get(s) ?? 31)
    let mustNot = 0
    let must = 0
    if (plan.excludeHidden) mustNot |= HIDDEN
    if (plan.publicOnly) mustNot |= PROTECTED
    if (plan.featured !== undefined) plan.featured ? (must |= FEATURED) : (mustNot |= FEATURED)
    if (plan.ticketed !== undefined) plan.ticketed ? (must |= TICKETED) : (mustNot |= TICKETED)
    const postParent = plan.postParent
    const order = c.order
    const flagsOf = c.flags.data
    const statusOf = c.status.data
    const endOf = c.end.data
    const idOf = c.id.data
    const venueOf = c.venue.data
    const parentOf = c.postParent.data
    const termStart = c.termStart.data
    const termCount = c.termCount.data
    const pool = c.termPool.data
    const matched: number[] = []
    next: for (let p = lo; p < hi; p++) {
      const slot = order[p] as number
      if (mask && !hasBit(mask, slot)) continue
      const flags = flagsOf[slot] as number
      if ((flags & mustNot) !== 0 || (flags & must) !== must) continue
      if (((statusMask >>> (statusOf[slot] as number)) & 1) === 0) continue
      const end = endOf[slot] as number
      if (end < endMin || (endMinOpen && end === endMin)) continue
      if (end > endMax || (endMaxOpen && end === endMax)) continue
      if (include && !include.has(idOf[slot] as number)) continue
      if (venues && !venues.has(venueOf[slot] as number)) continue
      if (postParent !== undefined && parentOf[slot] !== postParent) continue
      if (termSets.length > 0) {
        const start = termStart[slot] as number
        const end = start + (termCount[slot] as number)
        for (const has of termSets) {
          let any = false
          for (let t = start; t < end && !any; t++) any = has(pool[t] as number)
          if (!any) continue next
        }
      }
      matched.push(slot)
    }
    const listed = plan.stickyFirst
      ? [
          ...matched.filter((s) => (flagsOf[s] as number) & STICKY),
          ...matched.filter((s) => !((flagsOf[s] as number) & STICKY)),
        ]
      : matched
    return {
      ids: listed.slice(plan.offset, plan.offset + plan.limit).map((s) => idOf[s] as number),
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
