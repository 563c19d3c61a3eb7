import { sql } from 'kysely'
import { LRUCache } from 'lru-cache'
import { EventColumns } from './event-columns.js'
import { type EventListView, ModelMoved } from './event-list.js'
import { selectRows } from './event-list-row.js'
import { scanEvents, scanSeries } from './event-list-scan.js'
import { MAX_IDS } from './id-list.js'
import { queryRevision } from './revision.js'
import { seriesFilters, seriesNamedBy } from './series-filters.js'
import type { CalDb } from './store-context.js'
import { readTermSnapshot, type TermSnapshot } from './term-snapshot.js'

/** Changes past this many events reload the whole model (one scan beats many id lists). */
const RELOAD_ABOVE = MAX_IDS

/** Public ids at or past this are occurrence ids (`series-ids.ts`); below, an event's row id. */
const FIRST_OCCURRENCE_ID = 2 ** 31

/** What the model is at one revision: columns, terms, and how to scan them. */
interface Loaded {
  revision: number
  columns: EventColumns
  terms: TermSnapshot
  /** Row id of each edited occurrence's public id the model has held (a delete names it so). */
  overrideRows: Map<number, number>
}

/** The list model: the one read path of event lists. */
export interface EventListModel {
  /**
   * The model at exactly `revision`, read through `snapshot`: an open transaction whose
   * snapshot is at `revision` (REPEATABLE READ; on PGlite, any: it holds the one session). A
   * model behind catches up through it; one already past it gives `undefined` (the list is
   * read again in a newer snapshot).
   */
  exactly(revision: number, snapshot: CalDb): Promise<EventListView | undefined>
}

/**
 * Every event's list columns in memory, kept at the data revision (`cal_revision`, moved by
 * every committed write in any process): each list comes with its snapshot's revision and,
 * when the model is behind it, re-reads the events the changes feed's history (`cal_change`,
 * migration 0013) files under the revisions in between, or reloads everything when that
 * history no longer reaches back that far (`cal_sync.purged_through`). Every load and
 * catch-up reads in one snapshot, so the model holds exactly the data of its revision. The
 * first list waits for the first load (concurrent ones share it). Search words are lowered by
 * the database (`lower()` follows its locale), once per word.
 */
export function createEventListModel(): EventListModel {
  let loaded: Loaded | undefined
  const lowered = new LRUCache<string, string>({ max: 10_000 })

  async function loadAll(trx: CalDb): Promise<void> {
    const revision = await queryRevision(trx)
    const columns = new EventColumns()
    const rows = await selectRows(trx, undefined)
    const terms = await readTermSnapshot(trx)
    columns.apply([], rows)
    const overrideRows = new Map<number, number>()
    noteOverrides(overrideRows, rows)
    if (!loaded || loaded.revision <= revision) loaded = { revision, columns, terms, overrideRows }
  }

  /** Brings `model` forward to the revision of `trx`'s snapshot through `cal_change`. */
  async function catchUp(model: Loaded, trx: CalDb): Promise<void> {
    // One statement: the snapshot's revision, how far the history is kept, and the events
    // filed past the model's revision (at most one past the reload threshold), each with the
    // row of an edited occurrence named by its public id.
    const { rows: log } = await sql<{
      revision: string
      purged: string
      record_id: string | null
      row_id: number | null
    }>`
      with changed as (
        select distinct record_id from cal_change
        where revision > ${model.revision} and kind = 'event'
        limit ${RELOAD_ABOVE + 1})
      select (select n from cal_revision) as revision,
        (select purged_through from cal_sync) as purged, c.record_id, e.id as row_id
      from (select 1) one
      left join (changed c left join cal_event e on e.occurrence_id = c.record_id) on true`.execute(
      trx,
    )
    const newest = Number(log[0]?.revision)
    if (newest <= model.revision) return
    const changed = new Set<number>()
    for (const row of log) {
      if (row.record_id === null) continue
      const id = Number(row.record_id)
      // A series' id also names its first occurrence, so it may stand for the series row
      // and for the row of that occurrence's edit: both are refreshed.
      if (id < FIRST_OCCURRENCE_ID) changed.add(id)
      if (row.row_id !== null) changed.add(row.row_id)
      else {
        // A deleted edited occurrence (by its public id), or one without a row (an
        // occurrence an exception date removed): only the first is in the model.
        const rowId = model.overrideRows.get(id)
        if (rowId !== undefined) changed.add(rowId)
      }
    }
    const purged = Number(log[0]?.purged)
    if (purged > model.revision || log.length > RELOAD_ABOVE) return loadAll(trx)
    const ids = [...changed]
    const rows = ids.length ? await selectRows(trx, ids) : []
    const terms = await readTermSnapshot(trx)
    if (loaded !== model || model.revision >= newest) return
    model.columns.apply(ids, rows)
    noteOverrides(model.overrideRows, rows)
    loaded = { revision: newest, columns: model.columns, terms, overrideRows: model.overrideRows }
  }

  async function lowerWords(via: CalDb, words: readonly string[]): Promise<string[]> {
    const missing = words.filter((w) => !lowered.has(w))
    if (missing.length) {
      const { rows } = await sql<{ word: string; low: string }>`
        select w as word, lower(w) as low from unnest(${missing}::text[]) as w`.execute(via)
      for (const row of rows) lowered.set(row.word, row.low)
    }
    return words.map((w) => lowered.get(w) ?? w.toLowerCase())
  }

  /** The one load or catch-up in flight: concurrent lists wait for it together. */
  let pending: Promise<void> | undefined

  /** Waits for the load or catch-up in flight, or runs one in `snapshot`. */
  function advance(model: Loaded | undefined, snapshot: CalDb): Promise<void> {
    pending ??= (model ? catchUp(model, snapshot) : loadAll(snapshot)).finally(() => {
      pending = undefined
    })
    return pending
  }

  /** The model's reads at `revision`, each refusing once the model has moved on. */
  const viewAt = (model: Loaded, revision: number, snapshot: CalDb): EventListView => {
    // Its columns change in place when it moves on: scan only while it is here.
    const here = () => {
      if (loaded?.revision !== revision) throw new ModelMoved()
      return loaded.columns
    }
    return {
      terms: model.terms,
      lower: (words) => lowerWords(snapshot, words),
      list: (plan) => scanEvents(here(), plan),
      series: (plan, filter) => scanSeries(here(), seriesFilters(plan), seriesNamedBy(filter)),
    }
  }

  return {
    async exactly(revision, snapshot) {
      for (;;) {
        const model = loaded
        if (model && model.revision > revision) return undefined
        if (model?.revision === revision) return viewAt(model, revision, snapshot)
        // Another list's load or catch-up in flight (its snapshot may be older): wait for it
        // and look again; none: move the model here through this snapshot.
        const running = pending
        // Its failure is its list's to report; this one looks again.
        if (running) await running.catch(() => undefined)
        else await advance(model, snapshot)
      }
    },
  }
}

/** Notes the row of each edited occurrence among `rows` under its public id. */
function noteOverrides(
  into: Map<number, number>,
  rows: readonly { id: number; occurrence_id: number | null }[],
) {
  for (const row of rows)
    if (row.occurrence_id !== null) into.set(Number(row.occurrence_id), row.id)
}
