import { testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type CalHarness, ids, openCal } from './cal-harness.js'

// Issue 47, item 7: an occurrence deleted with scope=this is a trashed record, as a deleted
// single event is (GET 403 event-no-longer-available, DELETE again 410 event-is-in-trash), and
// a write on it does not bring it back; its series goes on, listable, also when the deleted
// occurrence was the first (the one the series' id names). The feed and the webhooks report
// its deletion once.

const ALL = 'start_date=1000-01-01&end_date=9999-12-31&per_page=50'

/** A daily 10:00–11:00 UTC series of `count` from 2026-04-01. */
const daily = (count: number) => ({
  title: 'Daily',
  start_date: '2026-04-01 10:00:00',
  end_date: '2026-04-01 11:00:00',
  recurrence: { rules: [`FREQ=DAILY;COUNT=${count}`] },
})

describe.each(testDatabases())('deleting occurrences of a series on $name', ({ open }) => {
  let t: CalHarness

  beforeAll(async () => {
    t = await openCal(open, { webhooks: true })
  })
  afterAll(() => t?.close())
  beforeEach(async () => {
    await t.makeMessages()
    await t.database.db.deleteFrom('cal_event' as never).execute()
    await t.database.db.deleteFrom('webhook_message' as never).execute()
  })

  const del = (id: number, scope?: string) =>
    t.call('DELETE', `/events/${id}${scope ? `?scope=${scope}` : ''}`, { token: true })
  const patch = (id: number, body: object, scope?: string) =>
    t.call('PATCH', `/events/${id}${scope ? `?scope=${scope}` : ''}`, { body, token: true })
  const listed = async (series: number) =>
    ids(await t.get(`/events?${ALL}&post_parent=${series}`, true))
  const token = async () => (await t.get('/events', true)).headers.get('x-cal-sync-token') ?? ''
  /**
   * The feed's entries after `since` but the series' own `updated` (its exception dates
   * changed), as a token holder and anonymously.
   */
  const feed = async (since: string, series: number) => {
    const out: string[][] = []
    for (const holder of [true, false]) {
      const page = await t.get(`/changes?since=${encodeURIComponent(since)}&per_page=500`, holder)
      expect(page.status).toBe(200)
      const entries = page.body.changes.map(
        (c: { id: number; action: string }) => `${c.action}:${c.id}`,
      )
      out.push(entries.filter((e: string) => e !== `updated:${series}`).sort())
    }
    return out
  }
  /** The webhook `event.deleted` messages made so far about event `id`. */
  const deletions = async (id: number) => {
    await t.makeMessages()
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from webhook_message
      where type = 'event.deleted' and (payload->>'id')::bigint = ${id}`.execute(t.database.db)
    return Number(rows[0]?.n)
  }
  /** The series `count` long, and its occurrence ids in order. */
  const series = async (count: number) => {
    const created = (await t.create('/events', daily(count))).body
    const occurrences = await listed(created.id)
    expect(occurrences).toHaveLength(count)
    return { id: created.id as number, occurrences }
  }

  /** What a deleted occurrence answers to every read and write. */
  async function expectTrashed(id: number) {
    const read = await t.get(`/events/${id}`, true)
    expect(read.status).toBe(403)
    expect(read.body.code).toBe('event-no-longer-available')
    for (const scope of [undefined, 'this']) {
      const again = await del(id, scope)
      expect(again.status).toBe(410)
      expect(again.body.code).toBe('event-is-in-trash')
      const edit = await patch(id, { title: 'Back?' }, scope)
      expect(edit.status).toBe(410)
      expect(edit.body.code).toBe('event-is-in-trash')
    }
  }

  it('answers a deleted middle occurrence as trashed, and reports it once', async () => {
    const s = await series(5)
    const third = s.occurrences[2] as number
    const since = await token()
    const gone = await del(third, 'this')
    expect(gone.status).toBe(200)
    expect(gone.body).toMatchObject({ id: third, status: 'trash' })
    await expectTrashed(third)
    const following = await patch(third, { title: 'Split?' }, 'following')
    expect(following.status).toBe(410)
    expect(await listed(s.id)).toEqual(s.occurrences.filter((id) => id !== third))
    expect((await t.get(`/events/${s.id}`)).status).toBe(200)
    expect(await feed(since, s.id)).toEqual([[`deleted:${third}`], [`deleted:${third}`]])
    expect(await deletions(third)).toBe(1)
  })

  it('keeps the series when its first occurrence is deleted: its id answers trashed', async () => {
    const s = await series(5)
    const [first, second] = s.occurrences as [number, number]
    expect(first).toBe(s.id)
    const since = await token()
    expect((await del(first, 'this')).body).toMatchObject({ id: first, status: 'trash' })
    await expectTrashed(first)
    expect(await listed(s.id)).toEqual(s.occurrences.slice(1))
    expect((await t.get(`/events/${second}`)).body).toMatchObject({ post_parent: s.id })
    expect(await feed(since, -1)).toEqual([[`deleted:${first}`], [`deleted:${first}`]])
    expect(await deletions(first)).toBe(1)
    // The whole series is still reachable by scope=all, from its id or any occurrence's.
    const afterDelete = await token()
    const renamed = await patch(second, { title: 'Renamed' }, 'all')
    // The series' change names its id, still its deleted first occurrence's: deleted again
    // (a follower lists the series again on any change of its id).
    expect(await feed(afterDelete, -1)).toEqual([[`deleted:${first}`], [`deleted:${first}`]])
    expect(renamed.status).toBe(200)
    expect(renamed.body).toMatchObject({ id: second, title: 'Renamed' })
    const rest = (await t.get(`/events?${ALL}&post_parent=${s.id}`, true)).body.events
    expect(rest.map((e: { title: string }) => e.title)).toEqual(Array(4).fill('Renamed'))
    expect((await patch(first, { title: 'By the id' }, 'all')).status).toBe(200)
    expect((await t.get(`/events/${second}`)).body.title).toBe('By the id')
    await expectTrashed(first)
    const all = await del(first, 'all')
    expect(all.status).toBe(200)
    expect(all.body.status).toBe('trash')
    expect(await listed(s.id)).toEqual([])
    expect((await t.get(`/events/${second}`, true)).status).toBe(403)
    expect((await del(second, 'all')).status).toBe(410)
  })

  it('deletes the last occurrence, then the others twice over, then the series', async () => {
    const s = await series(3)
    const [first, second, last] = s.occurrences as [number, number, number]
    const since = await token()
    expect((await del(last, 'this')).status).toBe(200)
    await expectTrashed(last)
    expect(await listed(s.id)).toEqual([first, second])
    expect((await del(second)).status).toBe(200)
    expect((await del(second)).status).toBe(410)
    expect(await listed(s.id)).toEqual([first])
    const [holder] = await feed(since, s.id)
    expect(holder).toEqual([`deleted:${second}`, `deleted:${last}`].sort())
    const next = await token()
    expect((await del(second, 'all')).status).toBe(200)
    expect(await listed(s.id)).toEqual([])
    // The series' trash: its id, the one record left; the deleted occurrences are not again.
    expect(await feed(next, -1)).toEqual([[`deleted:${first}`], [`deleted:${first}`]])
    expect(await deletions(last)).toBe(1)
    expect(await deletions(second)).toBe(1)
  })

  it('deletes the only occurrence of a COUNT=1 series, and then the series', async () => {
    const s = await series(1)
    const since = await token()
    const gone = await del(s.id, 'this')
    expect(gone.status).toBe(200)
    expect(gone.body).toMatchObject({ id: s.id, status: 'trash' })
    await expectTrashed(s.id)
    expect(await listed(s.id)).toEqual([])
    expect(await feed(since, -1)).toEqual([[`deleted:${s.id}`], [`deleted:${s.id}`]])
    expect(await deletions(s.id)).toBe(1)
    expect((await del(s.id, 'all')).status).toBe(200)
    expect((await del(s.id, 'all')).status).toBe(410)
  })

  it('leaves an edited occurrence deleted: its override goes, a PATCH does not restore it', async () => {
    const s = await series(4)
    const third = s.occurrences[2] as number
    expect((await patch(third, { title: 'Edited' })).status).toBe(200)
    const since = await token()
    expect((await del(third)).body).toMatchObject({ id: third, title: 'Edited', status: 'trash' })
    await expectTrashed(third)
    expect(await listed(s.id)).toEqual(s.occurrences.filter((id) => id !== third))
    expect(await feed(since, s.id)).toEqual([[`deleted:${third}`], [`deleted:${third}`]])
    expect(await deletions(third)).toBe(1)
  })
})
