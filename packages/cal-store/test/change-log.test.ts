import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type CalStore, createCalStore, type EventListFilter } from '../src/index.js'
import type { CalSchema } from '../src/schema.js'
import type { CalDb } from '../src/store-context.js'
import { migrateCal } from '../src/testing.js'

// One change log (migration 0015): `cal_change` is the only history an event write leaves;
// the list model and the feed both follow it, truncates and edited occurrences included.

const T = (iso: string) => new Date(iso)
const YEAR = { start: T('2026-01-01T00:00:00Z'), end: T('2026-12-31T00:00:00Z') }

/** Rows of every calendar table (Kysely's bookkeeping left out). */
async function rowCounts(db: CalDb): Promise<Record<string, number>> {
  const { rows: tables } = await sql<{ table_name: string }>`select table_name
    from information_schema.tables where table_schema = 'public'
      and table_name like 'cal\\_%' and table_name not like 'cal\\_migration%'
    order by table_name`.execute(db)
  const counts: Record<string, number> = {}
  for (const { table_name } of tables) {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n
      from ${sql.table(table_name)}`.execute(db)
    counts[table_name] = rows[0]?.n ?? 0
  }
  return counts
}

describe.each(testDatabases())('one change log on $name', ({ open }) => {
  let database: Database
  let store: CalStore
  let db: CalDb

  beforeAll(async () => {
    database = await open(migrateCal)
    store = createCalStore(database)
    await store.migrate()
    db = database.db.withTables<CalSchema>()
  })
  afterAll(async () => {
    await database?.close()
  })
  beforeEach(async () => {
    await sql`truncate cal_event_term, cal_event_organizer, cal_event, cal_term, cal_venue,
      cal_organizer restart identity cascade`.execute(db)
  })

  /** The list model's answer after the writes, and a model's loaded afresh, for `filter`. */
  async function bothWays(filter: EventListFilter) {
    const ids = (r: { items: { id: number }[]; total: number }) => ({
      ids: r.items.map((e) => e.id),
      total: r.total,
    })
    const fresh = createCalStore(database)
    return {
      model: ids(await store.events.list(filter)),
      fresh: ids(await fresh.events.list(filter)),
    }
  }

  it('an event write leaves rows in no log but cal_change', async () => {
    const before = await rowCounts(db)
    const event = await store.events.create({
      title: 'Once',
      start: T('2026-05-01T10:00:00Z'),
      end: T('2026-05-01T11:00:00Z'),
      timezone: 'UTC',
    })
    await store.events.update(event.id, { title: 'Twice' })
    await store.events.trash(event.id)
    const after = await rowCounts(db)
    const grown = Object.keys(after).filter((t) => (after[t] ?? 0) > (before[t] ?? 0))
    expect(grown.sort()).toEqual(['cal_change', 'cal_event', 'cal_revision_stamp'])
    expect((after.cal_change ?? 0) - (before.cal_change ?? 0)).toBe(3)
  })

  it('a truncate is every row deleted: the feed reports it and the model follows', async () => {
    const made = []
    for (const title of ['A', 'B', 'C']) {
      made.push(
        await store.events.create({
          title,
          start: T('2026-05-01T10:00:00Z'),
          end: T('2026-05-01T11:00:00Z'),
          timezone: 'UTC',
        }),
      )
    }
    const venue = await store.venues.create({ name: 'Hall' })
    const filter = { window: YEAR, limit: 10 }
    expect((await bothWays(filter)).model.total).toBe(3)
    const since = await (await store.reader()).syncToken()
    await sql`truncate cal_event, cal_venue restart identity cascade`.execute(db)
    const feed = await (await store.reader()).changes({ since, view: 'all' })
    expect(feed.changes.map((c) => `${c.kind}.${c.action}:${c.id}`).sort()).toEqual(
      [...made.map((e) => `event.deleted:${e.id}`), `venue.deleted:${venue.id}`].sort(),
    )
    // Ids start at 1 again: the model must not keep the old rows under the new ids.
    const again = await store.events.create({
      title: 'New',
      start: T('2026-06-01T10:00:00Z'),
      end: T('2026-06-01T11:00:00Z'),
      timezone: 'UTC',
    })
    expect(again.id).toBe(made[0]?.id)
    const lists = await bothWays(filter)
    expect(lists.model).toEqual(lists.fresh)
    expect(lists.model.ids).toEqual([again.id])
  })

  it('the model follows an edit of the first occurrence, named by the series id', async () => {
    const series = await store.events.create({
      title: 'Daily',
      start: T('2026-04-06T09:00:00Z'),
      end: T('2026-04-06T10:00:00Z'),
      timezone: 'UTC',
      recurrence: { rules: ['FREQ=DAILY;COUNT=3'] },
    })
    const filter = { post_parent: series.id, window: YEAR, limit: 10 }
    await bothWays(filter)
    // The first occurrence's public id is the series' id: its edit is a row of its own.
    await store.events.update(
      series.id,
      {
        title: 'First, moved last',
        start: T('2026-04-09T09:00:00Z'),
        end: T('2026-04-09T10:00:00Z'),
      },
      { scope: 'this' },
    )
    const edited = await bothWays(filter)
    expect(edited.model).toEqual(edited.fresh)
    expect(edited.model.ids).toHaveLength(3)
    expect(edited.model.ids[2]).toBe(series.id)
    await sql`delete from cal_event where occurrence_id = ${series.id}`.execute(db)
    const restored = await bothWays(filter)
    expect(restored.model).toEqual(restored.fresh)
  })

  it('the model drops an edited occurrence deleted by any writer (named by its public id)', async () => {
    const series = await store.events.create({
      title: 'Weekly',
      start: T('2026-03-02T09:00:00Z'),
      end: T('2026-03-02T10:00:00Z'),
      timezone: 'Europe/Berlin',
      recurrence: { rules: ['FREQ=WEEKLY;BYDAY=MO;COUNT=5'] },
    })
    const filter = { post_parent: series.id, window: YEAR, limit: 10 }
    const ids = (await store.events.list(filter)).items.map((e) => e.id)
    const third = ids[2] as number
    await store.events.update(third, {
      title: 'Third',
      start: T('2026-03-16T12:00:00Z'),
      end: T('2026-03-16T13:00:00Z'),
    })
    const edited = await bothWays(filter)
    expect(edited.model).toEqual(edited.fresh)
    // A script deletes the override row: the feed names it by the occurrence id, not its row.
    const deleted = await sql`delete from cal_event where occurrence_id = ${third}`.execute(db)
    expect(Number(deleted.numAffectedRows)).toBe(1)
    const lists = await bothWays(filter)
    expect(lists.model).toEqual(lists.fresh)
    expect(lists.model.ids).toEqual(ids)
  })
})
