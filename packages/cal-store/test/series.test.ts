import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  type CalEvent,
  CalInTrashError,
  type CalStore,
  CalValidationError,
  createCalStore,
  decodeOccurrenceId,
  formatLocalDateTime,
  KEY_SPACE,
} from '../src/index.js'
import { migrateCal, prng } from '../src/testing.js'

const T = (iso: string) => new Date(iso)
const wall = (e: CalEvent) => formatLocalDateTime(e.start, e.timezone)
const YEAR = { start: T('2026-01-01T00:00:00Z'), end: T('2026-12-31T00:00:00Z') }
/** What a split must leave as it was: each occurrence's place and content. */
const shown = (e: CalEvent) => ({ id: e.id, start: e.start, end: e.end, title: e.title })

describe.each(testDatabases())('recurring series in the store on $name', ({ open }) => {
  let database: Database
  let store: CalStore
  const clock = T('2026-03-01T12:00:00Z')

  beforeAll(async () => {
    database = await open(migrateCal)
    store = createCalStore(database, { now: () => clock })
    await store.migrate()
  })
  afterAll(async () => {
    await database?.close()
  })
  beforeEach(async () => {
    await sql`truncate cal_event_term, cal_event_organizer, cal_event, cal_term, cal_venue, cal_organizer restart identity cascade`.execute(
      database.db,
    )
  })

  /** A weekly Monday 10:00–11:00 Berlin series from 2026-03-02. */
  const weekly = (rules = ['FREQ=WEEKLY;BYDAY=MO'], extra: object = {}) =>
    store.events.create({
      title: 'Weekly',
      start: T('2026-03-02T09:00:00Z'),
      end: T('2026-03-02T10:00:00Z'),
      timezone: 'Europe/Berlin',
      recurrence: { rules },
      categories: ['Music'],
      ...extra,
    })

  /** The ids of a series' first `n` occurrences, from the list. */
  async function firstIds(series: CalEvent, n: number): Promise<number[]> {
    const { items } = await store.events.list({ post_parent: series.id, limit: n, window: YEAR })
    return items.map((e) => e.id)
  }

  it('tells the changes feed of edits and removals by public ids, as the webhooks hear them', async () => {
    const series = await weekly()
    const ids = await firstIds(series, 6)
    const reader = await store.reader()
    const since = await reader.syncToken()
    // An edit of the third: an override row, reported under the occurrence's id, not the row's.
    await store.events.update(ids[2] as number, { title: 'Third' })
    // The fifth removed by an exception date: it has no row, the write notes it.
    await store.events.trash(ids[4] as number)
    const feed = async (view: 'public' | 'all') =>
      (await (await store.reader()).changes({ since, view })).changes.map(
        (c) => `${c.kind}.${c.action}:${c.id}`,
      )
    for (const view of ['public', 'all'] as const) {
      const seen = await feed(view)
      expect(seen).toContain(`event.deleted:${ids[4]}`)
      expect(seen.some((c) => c.endsWith(`:${ids[2]}`))).toBe(true)
      // Nothing under a row id no client can read.
      for (const c of seen) {
        const id = Number(c.split(':')[1])
        if (!c.startsWith('event.deleted')) expect((await store.events.get(id))?.id).toBe(id)
      }
    }
  })

  it('reports an edit a scope=following split moves: its old id deleted, its new one created', async () => {
    const series = await weekly(['FREQ=WEEKLY;BYDAY=MO;COUNT=5'])
    const ids = await firstIds(series, 5)
    const edited = ids[3] as number
    await store.events.update(edited, { title: 'Fourth' })
    const since = await (await store.reader()).syncToken()
    await store.events.update(ids[1] as number, { title: 'After' }, { scope: 'following' })
    expect(await store.events.get(edited)).toBeUndefined()
    const moved = (await store.events.list({ search: 'Fourth', window: YEAR })).items
    expect(moved).toHaveLength(1)
    for (const view of ['public', 'all'] as const) {
      const { changes } = await (await store.reader()).changes({ since, view })
      const actions = (id: number) => changes.filter((c) => c.id === id).map((c) => c.action)
      expect(actions(edited)).toEqual(['deleted'])
      expect(actions(moved[0]!.id)).toEqual(['created'])
      expect(actions(series.id)).toContain('updated')
      expect(actions(series.id)).not.toContain('deleted')
    }
  })

  it('stores a series whose first occurrence is the series id, others by occurrence ids', async () => {
    const series = await weekly()
    expect(series.recurrence).toEqual({ rules: ['FREQ=WEEKLY;BYDAY=MO'] })
    expect(series.post_parent).toBe(series.id)
    const ids = await firstIds(series, 5)
    expect(ids[0]).toBe(series.id)
    for (const id of ids.slice(1)) {
      expect(id).toBeGreaterThanOrEqual(KEY_SPACE)
      expect(decodeOccurrenceId(id)).toBeDefined()
    }
    // Stable: the same ids on every read and list.
    expect(await firstIds(series, 5)).toEqual(ids)
    const [fifth] = await store.events.getMany([ids[4] as number])
    expect(wall(fifth as CalEvent)).toBe('2026-03-30 10:00:00') // after the DST change: still 10:00
    expect(fifth?.start.toISOString()).toBe('2026-03-30T08:00:00.000Z')
    expect(fifth).toMatchObject({
      post_parent: series.id,
      title: 'Weekly',
      category_ids: series.category_ids,
    })
    expect(fifth?.occurrence_start).toEqual(fifth?.start)
  })

  it('reads an occurrence in year 9000 of an infinite series, never listed', async () => {
    const series = await weekly(['FREQ=DAILY'])
    const [second] = (await firstIds(series, 2)).slice(1)
    const { slot } = decodeOccurrenceId(second as number) as { slot: number }
    // 9000-06-01 10:00 Berlin: its wall minute since 1000-01-01.
    const key = (Date.UTC(9000, 5, 1, 10, 0) - Date.UTC(1000, 0, 1)) / 60_000
    const event = await store.events.get(slot * KEY_SPACE + key)
    expect(event && wall(event)).toBe('9000-06-01 10:00:00')
    // 10:30 is no occurrence of a daily 10:00 rule; the first under its second name is none.
    expect(await store.events.get(slot * KEY_SPACE + key + 30)).toBeUndefined()
    const firstKey = (Date.UTC(2026, 2, 2, 10, 0) - Date.UTC(1000, 0, 1)) / 60_000
    expect(await store.events.get(slot * KEY_SPACE + firstKey)).toBeUndefined()
    expect(await store.events.get(2 ** 53 + 2)).toBeUndefined()
  })

  it('refuses a bad rule naming recurrence, before writing anything', async () => {
    for (const recurrence of [
      { rules: ['FREQ=MINUTELY'] },
      { rules: ['FREQ=DAILY;COUNT=0'] },
      { rules: 'FREQ=DAILY' },
      { rules: Array(11).fill('FREQ=DAILY') },
      { rules: ['FREQ=DAILY'], exdates: ['not a date'] },
      { rules: ['FREQ=DAILY;UNTIL=20200101T000000Z'] },
    ]) {
      await expect(weekly(undefined, { recurrence })).rejects.toMatchObject({
        name: 'CalValidationError',
        field: 'recurrence',
      })
    }
    const { n } = await database.db
      .selectFrom('cal_event' as never)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(n)).toBe(0)
  })

  it('scope=this edits one occurrence, which survives a later edit of the series', async () => {
    const series = await weekly()
    const ids = await firstIds(series, 6)
    const fifth = ids[4] as number
    const edited = await store.events.update(fifth, { title: 'Special' })
    expect(edited).toMatchObject({ id: fifth, title: 'Special', post_parent: series.id })
    await store.events.update(series.id, { title: 'Renamed', description: 'new' }, { scope: 'all' })
    const after = await store.events.getMany(ids)
    expect(after.map((e) => e.title)).toEqual([
      'Renamed',
      'Renamed',
      'Renamed',
      'Renamed',
      'Special',
      'Renamed',
    ])
    // A field the override did not change follows the series.
    expect(after[4]?.description).toBe('new')
    expect(await firstIds(series, 6)).toEqual(ids)
  })

  it('scope=this on the series id edits only the first occurrence', async () => {
    const series = await weekly()
    const ids = await firstIds(series, 3)
    await store.events.update(series.id, { title: 'First only' })
    const after = await store.events.getMany(ids)
    expect(after.map((e) => e.title)).toEqual(['First only', 'Weekly', 'Weekly'])
    expect(after[0]?.id).toBe(series.id)
  })

  it('scope=all moves every occurrence and drops overrides whose occurrence is gone', async () => {
    const series = await weekly()
    const ids = await firstIds(series, 4)
    await store.events.update(ids[2] as number, { title: 'Third' })
    const moved = await store.events.update(
      ids[1] as number,
      {
        recurrence: { rules: ['FREQ=WEEKLY;BYDAY=TU'] },
        start: T('2026-03-10T09:00:00Z'),
        end: T('2026-03-10T10:00:00Z'),
      },
      { scope: 'all' },
    )
    expect(moved.dropped_overrides).toEqual([ids[2]])
    const { items } = await store.events.list({ post_parent: series.id, limit: 3, window: YEAR })
    expect(items.map(wall)).toEqual([
      '2026-03-03 10:00:00',
      '2026-03-10 10:00:00',
      '2026-03-17 10:00:00',
    ])
    expect(items.map((e) => e.title)).toEqual(['Weekly', 'Weekly', 'Weekly'])
    expect(await store.events.get(ids[2] as number)).toBeUndefined()
  })

  it('delete scope=this removes exactly one occurrence', async () => {
    const series = await weekly(['FREQ=WEEKLY;BYDAY=MO;COUNT=6'])
    const ids = await firstIds(series, 10)
    expect(ids).toHaveLength(6)
    const gone = await store.events.trash(ids[4] as number)
    expect(gone).toMatchObject({ id: ids[4], status: 'trash' })
    expect(await firstIds(series, 10)).toEqual([...ids.slice(0, 4), ids[5]])
    // A deleted occurrence is a trashed record (issue 47): read as such, not deleted twice.
    expect(await store.events.get(ids[4] as number)).toMatchObject({ status: 'trash' })
    await expect(store.events.trash(ids[4] as number)).rejects.toBeInstanceOf(CalInTrashError)
    await expect(store.events.update(ids[4] as number, { title: 'x' })).rejects.toBeInstanceOf(
      CalInTrashError,
    )
    const total = await store.events.list({ post_parent: series.id })
    expect(total.total).toBe(5)
  })

  it('delete scope=this of an occurrence a DST gap moved removes it, not its twin', async () => {
    // 01:30, 02:30 and 03:30 daily in New York: on 2026-03-08 02:30 falls in the gap and
    // starts at 03:30's instant (07:30Z). Each of the two twins is deleted in turn.
    for (const [gone, kept] of [
      ['02:30', '03:30'],
      ['03:30', '02:30'],
    ]) {
      const series = await store.events.create({
        title: 'Gap',
        start: T('2026-03-07T06:30:00Z'),
        end: T('2026-03-07T07:00:00Z'),
        timezone: 'America/New_York',
        recurrence: { rules: ['FREQ=DAILY;BYHOUR=1,2,3;BYMINUTE=30;COUNT=6'] },
      })
      const day = { start: T('2026-03-08T00:00:00Z'), end: T('2026-03-08T12:00:00Z') }
      const list = async () =>
        (await store.events.list({ post_parent: series.id, window: day })).items
      const twins = (await list()).filter((e) => e.start.getTime() === Date.UTC(2026, 2, 8, 7, 30))
      expect(twins).toHaveLength(2)
      // the twins told apart by their ids' keys: the wall time each has by the rule
      const byWall = new Map(
        twins.map((e) => {
          const key = decodeOccurrenceId(e.id)?.key as number
          const minute = new Date(Date.UTC(1000, 0, 1) + key * 60_000).toISOString()
          return [minute.slice(11, 16), e.id] as const
        }),
      )
      await store.events.trash(byWall.get(gone as string) as number)
      const left = (await list()).map((e) => e.id)
      expect(left).toContain(byWall.get(kept as string))
      expect(left).not.toContain(byWall.get(gone as string))
      expect(await store.events.get(byWall.get(gone as string) as number)).toMatchObject({
        status: 'trash',
      })
      expect(await store.events.get(byWall.get(kept as string) as number)).toMatchObject({
        status: 'publish',
      })
    }
  })

  it('keeps all-day occurrences whole days across a day that is short or has no midnight', async () => {
    // New York's 2026-03-08 has 23 hours; Santiago's 2026-09-06 starts at 01:00 (no midnight).
    for (const [zone, day] of [
      ['America/New_York', '2026-03-08'],
      ['America/Santiago', '2026-09-06'],
    ] as const) {
      const date = (n: number) =>
        new Date(Date.parse(`${day}T12:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10)
      const whole = (from: number, to: number) =>
        Array.from({ length: to - from + 1 }, (_, i) => [
          date(from + i),
          `${date(from + i)} 23:59:59`,
        ])
      const window = { start: T(`${date(-2)}T00:00:00Z`), end: T('2026-12-31T00:00:00Z') }
      const days = async (id: number) =>
        (await store.events.list({ post_parent: id, window })).items.map((e) => [
          formatLocalDateTime(e.start, zone).slice(0, 10),
          formatLocalDateTime(e.end, zone),
        ])
      // starting on the day itself, and starting the day before, then split there
      const on = await store.events.create({
        title: 'On',
        start: T(`${date(0)}T15:00:00Z`),
        end: T(`${date(0)}T16:00:00Z`),
        timezone: zone,
        all_day: true,
        recurrence: { rules: ['FREQ=DAILY;COUNT=3'] },
      })
      expect(await days(on.id)).toEqual(whole(0, 2))
      const before = await store.events.create({
        title: 'Before',
        start: T(`${date(-1)}T15:00:00Z`),
        end: T(`${date(-1)}T16:00:00Z`),
        timezone: zone,
        all_day: true,
        recurrence: { rules: ['FREQ=DAILY;COUNT=4'] },
      })
      expect(await days(before.id)).toEqual(whole(-1, 2))
      const { items } = await store.events.list({ post_parent: before.id, window })
      const split = await store.events.update(
        (items[1] as CalEvent).id,
        { title: 'Later' },
        { scope: 'following' },
      )
      expect(await days(before.id)).toEqual(whole(-1, -1))
      expect(await days(split.id)).toEqual(whole(0, 2))
    }
  })

  it('scope=following splits the series, leaving 1–4 as they were', async () => {
    const series = await weekly(['FREQ=WEEKLY;BYDAY=MO;COUNT=8'])
    const ids = await firstIds(series, 10)
    await store.events.update(ids[6] as number, { title: 'Seventh' })
    const before = (await store.events.getMany(ids.slice(0, 4))).map(shown)
    const split = await store.events.update(
      ids[4] as number,
      { title: 'Later' },
      { scope: 'following' },
    )
    expect(split.title).toBe('Later')
    expect(split.id).not.toBe(series.id)
    expect((await store.events.getMany(ids.slice(0, 4))).map(shown)).toEqual(before)
    const old = await store.events.list({ post_parent: series.id, limit: 20 })
    expect(old.items.map((e) => e.id)).toEqual(ids.slice(0, 4))
    const next = await store.events.list({ post_parent: split.id, limit: 20 })
    expect(next.items.map(wall)).toEqual([
      '2026-03-30 10:00:00',
      '2026-04-06 10:00:00',
      '2026-04-13 10:00:00',
      '2026-04-20 10:00:00',
    ])
    expect(next.items.map((e) => e.title)).toEqual(['Later', 'Later', 'Seventh', 'Later'])
    expect(next.total).toBe(4)
  })

  it('delete scope=all trashes the series and its overrides; recurrence null makes a single event', async () => {
    const series = await weekly()
    const ids = await firstIds(series, 3)
    await store.events.update(ids[1] as number, { title: 'Second' })
    await store.events.trash(ids[2] as number, { scope: 'all' })
    expect((await store.events.list({ post_parent: series.id, window: YEAR })).total).toBe(0)
    const other = await weekly()
    const otherIds = await firstIds(other, 3)
    await store.events.update(otherIds[1] as number, { title: 'Second' })
    const single = await store.events.update(other.id, { recurrence: null })
    expect(single.recurrence).toBeNull()
    expect(single.dropped_overrides).toEqual([otherIds[1]])
    expect(await store.events.get(otherIds[2] as number)).toBeUndefined()
  })

  it('refuses a rule change with scope=this, naming recurrence', async () => {
    const series = await weekly()
    await expect(
      store.events.update(series.id, { recurrence: { rules: ['FREQ=DAILY'] } }, { scope: 'this' }),
    ).rejects.toBeInstanceOf(CalValidationError)
  })
})

describe.each(testDatabases().filter((d) => d.name === 'postgres'))(
  'concurrent writes on one series on $name',
  ({ open }) => {
    it('lands N concurrent scope=this edits and deletes of different occurrences', async () => {
      const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31)
      console.log(`concurrent scope=this seed ${seed} (FC_SEED=${seed} replays it)`)
      const rnd = prng(seed)
      // One store per connection pool client: the writes really run side by side.
      const database = await open(migrateCal)
      const store = createCalStore(database)
      await store.migrate()
      try {
        const series = await store.events.create({
          title: 'Weekly',
          start: T('2026-03-02T09:00:00Z'),
          end: T('2026-03-02T10:00:00Z'),
          timezone: 'Europe/Berlin',
          recurrence: { rules: ['FREQ=WEEKLY;BYDAY=MO;COUNT=40'] },
        })
        const { items } = await store.events.list({
          post_parent: series.id,
          window: { start: T('2026-01-01T00:00:00Z'), end: T('2027-12-31T00:00:00Z') },
          limit: 40,
        })
        expect(items).toHaveLength(40)
        const ids = items.map((e) => e.id)
        const order = ids.map((id, i) => ({ id, i, r: rnd.next() })).sort((a, b) => a.r - b.r)
        const edited = order.slice(0, 16)
        const deleted = order.slice(16, 24)
        await Promise.all([
          ...edited.map(({ id, i }) => store.events.update(id, { title: `edit ${i}` })),
          ...deleted.map(({ id }) => store.events.trash(id)),
          // A whole-series edit racing them: some serial order, never a lost write. Sent to
          // an occurrence nobody deletes (the series' id names its first occurrence, which
          // may be deleted first: then that id is rightly not found).
          store.events.update(order[24]?.id as number, { description: 'all' }, { scope: 'all' }),
        ])
        // Invariants in the database: one override per edited occurrence, each exdate once.
        const { rows } = await sql<{ key: number; title: string; description: string }>`
          select occurrence_key as key, title, description from cal_event
          where post_parent = ${series.id} and occurrence_key is not null`.execute(database.db)
        expect(rows.map((r) => r.title).sort(), `seed ${seed}`).toEqual(
          edited.map(({ i }) => `edit ${i}`).sort(),
        )
        expect(new Set(rows.map((r) => r.key)).size, `seed ${seed}`).toBe(16)
        const [stored] = (
          await sql<{ recurrence: string }>`select recurrence from cal_event
            where id = ${series.id}`.execute(database.db)
        ).rows
        // Each deleted occurrence's wall time once, and nothing else.
        expect([...JSON.parse(stored?.recurrence ?? '{}').exdates].sort(), `seed ${seed}`).toEqual(
          deleted.map(({ i }) => wall(items[i] as CalEvent)).sort(),
        )
        // Every override row names an occurrence the rule still has (none was exdated).
        const exdated = new Set(deleted.map(({ i }) => i))
        for (const { i } of edited) expect(exdated.has(i), `seed ${seed}`).toBe(false)
        const after = await store.events.list({
          post_parent: series.id,
          window: { start: T('2026-01-01T00:00:00Z'), end: T('2027-12-31T00:00:00Z') },
          limit: 40,
        })
        const gone = new Set(deleted.map((d) => d.id))
        expect(
          after.items.map((e) => e.id),
          `seed ${seed}`,
        ).toEqual(ids.filter((id) => !gone.has(id)))
        for (const { id, i } of edited) {
          expect(after.items.find((e) => e.id === id)?.title).toBe(`edit ${i}`)
        }
      } finally {
        await database.close()
      }
    }, 60_000)
  },
)
