import { sql } from 'kysely'
import { LRUCache } from 'lru-cache'
import { EventColumns, selectRows } from './event-columns.js'
import type { EventIdIndex } from './event-list.js'
import { prepareScan, scanEvents } from './event-list-scan.js'
import { MAX_IDS } from './id-list.js'
import type { CalDb } from './store-context.js'
import { readTermSnapshot, type TermSnapshot } from './term-snapshot.js'

/** Settings of the in-memory event list model (`createCalStore({ listModel })`). */
export interface ListModelOptions {
  /** Most events the model holds; a larger calendar lists by SQL alone. Default 1,000,000. */
  maxEvents?: number
}

/** Changes past this many events reload the whole model (one scan beats many id lists). */
const RELOAD_ABOVE = MAX_IDS

/** What the model is at one revision: columns, terms, and how to scan them. */
interface Loaded {
  revision: number
  columns: EventColumns
  terms: TermSnapshot
}

/**
 * An {@link EventIdIndex} over every event's list columns in memory, kept at the data revision
 * (`cal_revision`, moved by every committed write in any process): each list comes with its
 * reader's revision and, when the model is behind it, applies the events the change log
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
    const columns = new EventColumns()
    const [rows, terms] = await Promise.all([selectRows(db), readTermSnapshot(db)])
    columns.apply([], rows)
    tooLargeAt = undefined
    if (!loaded || loaded.revision <= revision) loaded = { revision, columns, terms }
  }

  /** Brings `model` forward to at least `target` through the change log. */
  async function catchUp(model: Loaded, target: number): Promise<void> {
    // One statement, so one snapshot: the revisions past the model's and the distinct events
    // they wrote (a null id: a truncate), at most one past the reload threshold.
    const log = await sql<{ revision: number | null; event_id: number | null }>`
      with past as (select revision, xid from cal_revision_log where revision > ${model.revision})
      select revision, null::integer as event_id from past
      union all
      (select distinct null::bigint, c.event_id from past join cal_event_change c on c.xid = past.xid
        limit ${RELOAD_ABOVE + 1})`.execute(db)
    const revisions = new Set<number>()
    const changed = new Set<number>()
    let complete = true
    for (const row of log.rows) {
      if (row.revision !== null) revisions.add(Number(row.revision))
      else if (row.event_id === null) complete = false
      else changed.add(row.event_id)
    }
    let newest = target
    for (const r of revisions) if (r > newest) newest = r
    for (let r = model.revision + 1; r <= newest; r++) if (!revisions.has(r)) complete = false
    if (!complete || changed.size > RELOAD_ABOVE || model.columns.size + changed.size > maxEvents) {
      return loadAll()
    }
    const ids = [...changed]
    const [rows, terms] = await Promise.all([
      ids.length ? selectRows(db, ids) : [],
      readTermSnapshot(db),
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

  /** The one load or catch-up in flight: concurrent lists wait for it together. */
  let pending: Promise<void> | undefined

  return {
    async at(revision) {
      for (;;) {
        const model = loaded
        if (!model && tooLargeAt !== undefined && revision <= tooLargeAt) return undefined
        if (model && model.revision >= revision) {
          return {
            terms: model.terms,
            async list(plan) {
              // Undefined when a filter is SQL only (organizer, geo, modified).
              const steps = await prepareScan(plan, { lower: lowerWords })
              // The words' round trip may have let a catch-up in: scan what is there now.
              return steps && scanEvents((loaded ?? model).columns, plan, steps)
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
