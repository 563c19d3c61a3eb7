import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import fc from 'fast-check'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type CalStore,
  CalSyncTokenExpiredError,
  CalValidationError,
  type ChangesView,
  createCalStore,
  type FeedChange,
} from '../src/index.js'
import { migrateCal } from '../src/testing.js'

const start = new Date('2030-05-01T10:00:00Z')
const end = new Date('2030-05-01T12:00:00Z')
const label = (c: FeedChange) => `${c.kind}.${c.action}:${c.id}`
const DAY = 86_400_000

describe.each(testDatabases())('changes feed on $name', ({ name, open }) => {
  let database: Database
  let store: CalStore

  beforeAll(async () => {
    database = await open(migrateCal)
    store = createCalStore(database)
    await store.migrate()
  })
  afterAll(async () => {
    await database?.close()
  })

  /** The token now, for following what comes next. */
  const mark = async () => (await store.reader()).syncToken()
  /** Every change after `since`, all pages, as labels, with the pages' sizes. */
  async function follow(since: string, view: ChangesView = 'public', limit = 100) {
    const labels: string[] = []
    const sizes: number[] = []
    for (let token = since; ; ) {
      const page = await (await store.reader()).changes({ since: token, view, limit })
      labels.push(...page.changes.map(label))
      sizes.push(page.changes.length)
      token = page.nextSince
      if (!page.more) return { labels, sizes, next: token }
    }
  }

  it('reports creates, updates and trashes, per view', async () => {
    const t0 = await mark()
    const venue = await store.venues.create({ name: 'Feed Hall' })
    const shown = await store.events.create({ title: 'Shown', start, end, venue: venue.id })
    const draft = await store.events.create({ title: 'Draft', start, end, status: 'draft' })
    const t1 = await mark()
    expect((await follow(t0)).labels).toEqual([
      `venue.created:${venue.id}`,
      `event.created:${shown.id}`,
    ])
    expect((await follow(t0, 'all')).labels).toEqual([
      `venue.created:${venue.id}`,
      `event.created:${shown.id}`,
      `event.created:${draft.id}`,
    ])
    await store.events.update(shown.id, { title: 'Shown again' })
    await store.events.update(draft.id, { title: 'Still a draft' })
    await store.venues.trash(venue.id)
    const t2 = await mark()
    // The trashed venue leaves its event (an event update) and is deleted.
    expect((await follow(t1)).labels).toEqual([
      `event.updated:${shown.id}`,
      `venue.deleted:${venue.id}`,
    ])
    expect((await follow(t1, 'all')).labels).toEqual([
      `event.updated:${draft.id}`,
      `event.updated:${shown.id}`,
      `venue.deleted:${venue.id}`,
    ])
    // Publishing is a creation for the public, leaving publish a deletion.
    await store.events.update(draft.id, { status: 'publish' })
    await store.events.update(shown.id, { status: 'private' })
    const t3 = await mark()
    expect((await follow(t2)).labels).toEqual([
      `event.created:${draft.id}`,
      `event.deleted:${shown.id}`,
    ])
    expect((await follow(t2, 'all')).labels).toEqual([
      `event.updated:${draft.id}`,
      `event.updated:${shown.id}`,
    ])
    await store.events.trash(draft.id)
    await store.events.trash(shown.id)
    expect((await follow(t3)).labels).toEqual([`event.deleted:${draft.id}`])
    expect((await follow(t3, 'all')).labels).toEqual([
      `event.deleted:${draft.id}`,
      `event.deleted:${shown.id}`,
    ])
  })

  it('folds a record to its latest action and drops what was made and deleted', async () => {
    const t0 = await mark()
    const a = await store.events.create({ title: 'A', start, end })
    await store.events.update(a.id, { title: 'A2' })
    await store.events.update(a.id, { title: 'A3' })
    const gone = await store.events.create({ title: 'Gone', start, end })
    await store.events.trash(gone.id)
    const { labels } = await follow(t0)
    expect(labels).toEqual([`event.created:${a.id}`])
    const t1 = await mark()
    await store.events.update(a.id, { title: 'A4' })
    await store.events.trash(a.id)
    expect((await follow(t1)).labels).toEqual([`event.deleted:${a.id}`])
  })

  it('reports term links, permanent term deletes and organizer unlinks', async () => {
    const cat = await store.categories.create({ name: 'Feed cat' })
    const org = await store.organizers.create({ name: 'Feed org' })
    const e = await store.events.create({
      title: 'Linked',
      start,
      end,
      categories: [cat.id],
      organizers: [org.id],
    })
    const t0 = await mark()
    await store.categories.delete(cat.id)
    expect((await follow(t0)).labels).toEqual([
      `category.deleted:${cat.id}`,
      `event.updated:${e.id}`,
    ])
    const t1 = await mark()
    await store.organizers.trash(org.id)
    expect((await follow(t1)).labels).toEqual([
      `event.updated:${e.id}`,
      `organizer.deleted:${org.id}`,
    ])
    const tag = await store.tags.create({ name: 'Feed tag' })
    const t2 = await mark()
    await store.events.update(e.id, { tags: [tag.id] })
    // The tag's count moved with the link: the tag changed too.
    expect((await follow(t2)).labels.sort()).toEqual([
      `event.updated:${e.id}`,
      `tag.updated:${tag.id}`,
    ])
  })

  it('sees writes of other processes and scripts (database triggers)', async () => {
    const e = await store.events.create({ title: 'Scripted', start, end })
    const t0 = await mark()
    await sql`update cal_event set status = 'draft' where id = ${e.id}`.execute(database.db)
    await sql`delete from cal_event where id = ${e.id}`.execute(database.db)
    expect((await follow(t0)).labels).toEqual([`event.deleted:${e.id}`])
    expect((await follow(t0, 'all')).labels).toEqual([`event.deleted:${e.id}`])
  })

  it('pages across per_page boundaries without skipping or repeating', async () => {
    const t0 = await mark()
    // One revision with 7 records, then 5 single revisions, then an update of the first.
    const ids = await store.events.createMany(
      Array.from({ length: 7 }, (_, i) => ({ title: `Bulk ${i}`, start, end })),
    )
    const singles: number[] = []
    for (let i = 0; i < 5; i++)
      singles.push((await store.events.create({ title: `One ${i}`, start, end })).id)
    await store.events.update(ids[0] as number, { title: 'Bulk 0 again' })
    const whole = await follow(t0, 'public', 500)
    expect(whole.labels).toHaveLength(12)
    for (const limit of [1, 2, 3, 5, 7, 11, 12, 13]) {
      const paged = await follow(t0, 'public', limit)
      expect(Math.max(...paged.sizes)).toBeLessThanOrEqual(limit)
      // Page by page, a record appears again only after a later change of it.
      const created = new Set(paged.labels.filter((l) => l.startsWith('event.created')))
      expect(created.size, `limit ${limit}`).toBe(12)
      expect(paged.labels.filter((l) => !l.startsWith('event.created'))).toEqual(
        paged.labels.includes(`event.created:${ids[0]}`) &&
          paged.labels.indexOf(`event.created:${ids[0]}`) === paged.labels.length - 1
          ? []
          : [`event.updated:${ids[0]}`],
      )
      expect(await follow(paged.next)).toMatchObject({ labels: [] })
    }
    expect(singles).toHaveLength(5)
  })

  it('answers nothing new after the latest token and moves it with the revision', async () => {
    const t0 = await mark()
    const page = await (await store.reader()).changes({ since: t0 })
    expect(page).toMatchObject({ changes: [], more: false })
    const e = await store.events.create({ title: 'Later', start, end })
    const next = await (await store.reader()).changes({ since: page.nextSince })
    expect(next.changes.map(label)).toEqual([`event.created:${e.id}`])
  })

  it('refuses garbage, forged and foreign tokens with CalSyncTokenExpiredError', async () => {
    const reader = await store.reader()
    const good = await reader.syncToken()
    const [revision, issued, mac] = good.split('.')
    const other = await open(migrateCal)
    try {
      const foreign = createCalStore(other)
      await foreign.migrate()
      const foreignToken = await (await foreign.reader()).syncToken()
      for (const since of [
        '',
        'x',
        '.',
        '123',
        `${Number(revision) + 1}.${issued}.${mac}`,
        `${revision}.e1.${issued}.${mac}`,
        `s${revision}.${issued}.${mac}`,
        `${revision}.${issued}0.${mac}`,
        `${revision}.${mac}`,
        `${revision}.${issued}.${mac}x`,
        foreignToken,
        'a'.repeat(10_000),
        `${'9'.repeat(40)}.${issued}.${mac}`,
      ]) {
        await expect(reader.changes({ since }), since.slice(0, 40)).rejects.toBeInstanceOf(
          CalSyncTokenExpiredError,
        )
      }
    } finally {
      await other.close()
    }
    for (const limit of [0, -1, 501, 1.5, Number.NaN]) {
      await expect(reader.changes({ since: good, limit })).rejects.toBeInstanceOf(
        CalValidationError,
      )
    }
    await expect(reader.changes({ since: good, limit: 500 })).resolves.toMatchObject({
      more: false,
    })
  })

  /** `kind:id` of every record `view` may see now, from the tables themselves. */
  async function visibleKeys(view: ChangesView): Promise<Set<string>> {
    const shown = view === 'public' ? sql`status = 'publish'` : sql`status <> 'trash'`
    const { rows } = await sql<{ key: string }>`
      select 'event:' || id as key from cal_event where ${shown}
      union all select 'venue:' || id from cal_venue where ${shown}
      union all select 'organizer:' || id from cal_organizer where ${shown}
      union all select case taxonomy when 'cal_event_category' then 'category:' else 'tag:' end
        || id from cal_term`.execute(database.db)
    return new Set(rows.map((r) => r.key))
  }

  it('full sync: every visible record once, by (kind, id), then the feed from its start', async () => {
    const venue = await store.venues.create({ name: 'Sync hall' })
    const draftVenue = await store.venues.create({ name: 'Draft hall', status: 'draft' })
    const cat = await store.categories.create({ name: 'Sync cat' })
    const events = await store.events.createMany(
      Array.from({ length: 5 }, (_, i) => ({ title: `Sync ${i}`, start, end, venue: venue.id })),
    )
    const draft = await store.events.create({ title: 'Sync draft', start, end, status: 'draft' })
    for (const view of ['public', 'all'] as const) {
      const listed: FeedChange[] = []
      let page = await (await store.reader()).changes({ view, limit: 2 })
      for (;;) {
        expect(page.changes.length).toBeLessThanOrEqual(2)
        listed.push(...page.changes)
        if (!page.nextSince.startsWith('s')) break
        page = await (await store.reader()).changes({ since: page.nextSince, view, limit: 2 })
      }
      expect(listed.every((c) => c.action === 'created')).toBe(true)
      const keys = listed.map((c) => `${c.kind}:${c.id}`)
      expect(new Set(keys).size).toBe(keys.length)
      expect(new Set(keys)).toEqual(await visibleKeys(view))
      // In the feed's order: kind, then id.
      const order = [...listed].sort((a, b) =>
        a.kind === b.kind ? a.id - b.id : a.kind < b.kind ? -1 : 1,
      )
      expect(listed).toEqual(order)
      expect(keys.includes(`event:${draft.id}`)).toBe(view === 'all')
      expect(keys.includes(`venue:${draftVenue.id}`)).toBe(view === 'all')
      expect(keys).toContain(`category:${cat.id}`)
      const first = listed.find((c) => c.kind === 'event' && c.id === events[0])
      const stored = await store.events.get(events[0] as number)
      expect(first?.modified).toEqual(stored?.modified)
      expect(first?.modified).toBeInstanceOf(Date)
      // The last page's token follows from the sync's start: nothing after, so nothing new.
      expect(await follow(page.nextSince, view)).toMatchObject({ labels: [] })
    }
  })

  it('full sync under writes between pages: what its start saw, once, then its delta', async () => {
    await store.events.createMany(
      Array.from({ length: 12 }, (_, i) => ({ title: `Base ${i}`, start, end })),
    )
    const op = fc.oneof(
      fc.record({ kind: fc.constant('create' as const), draft: fc.boolean() }),
      fc.record({ kind: fc.constantFrom('trash' as const, 'draft' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('term' as const), pick: fc.nat() }),
    )
    const run = fc.record({
      view: fc.constantFrom<ChangesView>('public', 'all'),
      limit: fc.integer({ min: 1, max: 4 }),
      steps: fc.array(fc.array(op, { maxLength: 3 }), { minLength: 1, maxLength: 12 }),
    })
    await fc.assert(
      fc.asyncProperty(run, async ({ view, limit, steps }) => {
        const atStart = await visibleKeys(view)
        const touched = new Set<string>()
        const copy = new Set<string>()
        const listed: string[] = []
        let page = await (await store.reader()).changes({ view, limit })
        for (let i = 0; ; i++) {
          listed.push(...page.changes.map((c) => `${c.kind}:${c.id}`))
          for (const c of page.changes) copy.add(`${c.kind}:${c.id}`)
          for (const o of steps[i] ?? []) {
            const ids = (
              await sql<{ id: number }>`select id from cal_event where status <> 'trash'
                order by id`.execute(database.db)
            ).rows.map((r) => r.id)
            if (o.kind === 'create') {
              const e = await store.events.create({
                title: 'Made',
                start,
                end,
                status: o.draft ? 'draft' : 'publish',
              })
              touched.add(`event:${e.id}`)
            } else if (o.kind === 'term') {
              const t = await store.tags.create({ name: `Sync tag ${Date.now()}.${o.pick}` })
              touched.add(`tag:${t.id}`)
              if (o.pick % 2) {
                await store.tags.delete(t.id)
              }
            } else if (ids.length > 0) {
              const id = ids[o.pick % ids.length] as number
              touched.add(`event:${id}`)
              if (o.kind === 'trash') await store.events.trash(id)
              else await store.events.update(id, { status: 'draft' })
            }
          }
          if (!page.nextSince.startsWith('s')) break
          page = await (await store.reader()).changes({ since: page.nextSince, view, limit })
        }
        // A record visible throughout and never written: listed exactly once.
        for (const key of atStart) {
          if (touched.has(key)) continue
          expect(
            listed.filter((k) => k === key),
            key,
          ).toHaveLength(1)
        }
        // One snapshot: the sync lists exactly what the view saw at its start, once each…
        expect(listed).toHaveLength(new Set(listed).size)
        expect(new Set(listed)).toEqual(atStart)
        // …and the feed from its start is a delta of that, nothing in it twice: a record
        // comes as created only when the copy lacks it, as updated or deleted only when it has it.
        for (const c of (await follow(page.nextSince, view, limit)).labels) {
          const [what, id] = c.split(':')
          const key = `${what?.split('.')[0]}:${id}`
          expect(copy.has(key), `${c} after the sync`).toBe(!what?.endsWith('.created'))
          if (what?.endsWith('.deleted')) copy.delete(key)
          else copy.add(key)
        }
        expect(copy).toEqual(await visibleKeys(view))
      }),
      { numRuns: name === 'pglite' ? 15 : 25 },
    )
  }, 240_000)

  it('expires a token by its age, even with nothing written since', async () => {
    let now = Date.now()
    const clocked = createCalStore(database, { now: () => new Date(now), changesRetentionDays: 30 })
    await store.events.create({ title: 'Before the token', start, end })
    const idle = await (await clocked.reader()).syncToken()
    now += 29 * DAY
    const page = await (await clocked.reader()).changes({ since: idle })
    expect(page).toMatchObject({ changes: [], more: false })
    now += 2 * DAY
    // 31 days old, nothing written since: expired all the same.
    await expect((await clocked.reader()).changes({ since: idle })).rejects.toBeInstanceOf(
      CalSyncTokenExpiredError,
    )
    // The page read at day 29 issued a new token: it is 2 days old.
    await expect(
      (await clocked.reader()).changes({ since: page.nextSince }),
    ).resolves.toMatchObject({ changes: [] })
    // A full sync's cursor keeps its start's age, and so does the token it ends with.
    const first = await (await clocked.reader()).changes({ limit: 1 })
    expect(first.more).toBe(true)
    now += 31 * DAY
    await expect(
      (await clocked.reader()).changes({ since: first.nextSince }),
    ).rejects.toBeInstanceOf(CalSyncTokenExpiredError)
    for (const days of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => createCalStore(database, { changesRetentionDays: days }), `${days}`).toThrow(
        RangeError,
      )
    }
  })

  it('trims history on commit, without any reader, by cal_sync.retention_days', async () => {
    const short = createCalStore(database, { changesRetentionDays: 2 })
    await short.migrate()
    try {
      const old = await mark()
      const e = await store.events.create({ title: 'Aged', start, end })
      const kept = await mark()
      // Age what is there by 3 days, as if written then.
      await sql`update cal_change set at = at - interval '3 days'`.execute(database.db)
      const before = await sql<{ n: number }>`select count(*)::int as n from cal_change
        where revision is not null`.execute(database.db)
      expect(before.rows[0]?.n).toBeGreaterThan(0)
      // 64 commits guarantee a bump that trims; no feed read in between.
      for (let i = 0; i < 64; i++) await store.events.update(e.id, { title: `Aged ${i}` })
      const { rows } = await sql<{ old: number; purged: string; days: number }>`select
          (select count(*)::int from cal_change where at < now() - interval '2 days') as old,
          purged_through as purged, retention_days as days from cal_sync`.execute(database.db)
      expect(rows[0]).toMatchObject({ old: 0, days: 2 })
      expect(Number(rows[0]?.purged)).toBeGreaterThanOrEqual(
        Number((await store.reader()).revision) - 64 - 64,
      )
      // A token behind the mark is expired; one at it still has every change after it.
      await expect((await store.reader()).changes({ since: old })).rejects.toBeInstanceOf(
        CalSyncTokenExpiredError,
      )
      expect((await follow(kept)).labels).toEqual([`event.updated:${e.id}`])
      const after = await mark()
      await store.events.update(e.id, { title: 'Fresh' })
      expect((await follow(after)).labels).toEqual([`event.updated:${e.id}`])
    } finally {
      await store.migrate()
    }
    const { rows } = await sql<{ days: number }>`select retention_days as days
      from cal_sync`.execute(database.db)
    expect(rows[0]?.days).toBe(30)
  })

  it.runIf(name === 'postgres')(
    'trims under concurrent commits while a mirror follows: 410 or complete, never a gap',
    { timeout: 120_000 },
    async () => {
      // ~0.9 s of history: the bumps trim while the mirror reads.
      const short = createCalStore(database, { changesRetentionDays: 1e-5 })
      await short.migrate()
      const view: ChangesView = 'all'
      let expired = 0
      const copy = new Set<string>()
      /** Follows from `since` (none: a full sync) until `more` is false; false on a 410. */
      async function sync(since?: string): Promise<string | false> {
        for (let token = since; ; ) {
          try {
            const page = await (await short.reader()).changes({ since: token, view, limit: 7 })
            for (const c of page.changes) {
              if (c.action === 'deleted') copy.delete(`${c.kind}:${c.id}`)
              else copy.add(`${c.kind}:${c.id}`)
            }
            if (!page.more) return page.nextSince
            token = page.nextSince
          } catch (error) {
            if (!(error instanceof CalSyncTokenExpiredError)) throw error
            expired++
            return false
          }
        }
      }
      async function mirror(): Promise<string> {
        copy.clear()
        for (;;) {
          const token = await sync()
          if (token) return token
          copy.clear()
        }
      }
      try {
        let writing = true
        const writers = Promise.all(
          [0, 1, 2, 3].map(async (w) => {
            const mine: number[] = []
            for (let i = 0; i < 50; i++) {
              if (i % 5 === 4 && mine.length) await store.events.trash(mine.shift() as number)
              else if (i % 2 && mine.length) {
                await store.events.update(mine[0] as number, { title: `W${w}.${i}` })
              } else mine.push((await store.events.create({ title: `W${w}`, start, end })).id)
              if (i % 10 === 0) await new Promise((r) => setTimeout(r, 100))
            }
          }),
        ).finally(() => {
          writing = false
        })
        let token = await mirror()
        for (let round = 0; writing; round++) {
          // Now and then fall behind the retention: the token must expire, not skip.
          if (round % 3 === 1) await new Promise((r) => setTimeout(r, 1000))
          const next = await sync(token)
          token = next || (await mirror())
        }
        await writers
        const last = await sync(token)
        if (!last) await mirror()
        expect(copy).toEqual(await visibleKeys(view))
        const { rows } = await sql<{ purged: string; behind: number }>`select purged_through
            as purged, (select count(*)::int from cal_change c
              where c.revision <= s.purged_through) as behind
          from cal_sync s`.execute(database.db)
        // The trim ran (by the writers' commits alone) and left no row behind its mark.
        expect(Number(rows[0]?.purged)).toBeGreaterThan(0)
        expect(rows[0]?.behind).toBe(0)
        expect(expired).toBeGreaterThan(0)
        console.log(`concurrent trim: ${expired} expired tokens, mirror converged`)
      } finally {
        await store.migrate()
      }
    },
  )
})
