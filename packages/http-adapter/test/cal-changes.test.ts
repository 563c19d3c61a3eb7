import { seedRun, testDatabases, testLevel } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CAL_EXPOSED_HEADERS } from '../src/cal/cal-api-options.js'
import { type CalHarness, openCal } from './cal-harness.js'
import { type EventHistory, listsAtTheirTokens, type MirrorCall, runMirror } from './cal-mirror.js'

const event = (title: string, extra: Record<string, unknown> = {}) => ({
  title,
  start_date: '2026-04-01 10:00:00',
  end_date: '2026-04-01 11:00:00',
  ...extra,
})

describe.each(testDatabases())('GET /changes on $name', ({ open }) => {
  let cal: CalHarness
  beforeAll(async () => {
    cal = await openCal(open)
  })
  afterAll(async () => {
    await cal?.close()
  })

  const token = async (holder = false) => {
    const answer = await cal.get('/events', holder)
    const value = answer.headers.get('x-cal-sync-token')
    expect(value).toBeTruthy()
    return value as string
  }
  const changes = async (since: string, holder = false, perPage = 100) =>
    cal.get(`/changes?since=${encodeURIComponent(since)}&per_page=${perPage}`, holder)
  const labels = (answer: { body: { changes: { type: string; action: string; id: number }[] } }) =>
    answer.body.changes.map((c) => `${c.type}.${c.action}:${c.id}`)

  it('puts X-CAL-Sync-Token on every list answer, exposed to browsers', async () => {
    for (const path of ['/events', '/venues', '/organizers', '/categories', '/tags']) {
      const answer = await cal.get(path)
      expect(answer.status, path).toBe(200)
      expect(answer.headers.get('x-cal-sync-token'), path).toMatch(
        /^\d+-[0-9a-z]+\.[0-9a-z]+\.[\w-]+$/,
      )
    }
    expect(CAL_EXPOSED_HEADERS).toContain('X-CAL-Sync-Token')
  })

  it('answers the spec shape, per caller, and password events by id and action only', async () => {
    const since = await token()
    const shown = (await cal.create('/events', event('Shown'))).body
    const locked = (await cal.create('/events', event('Locked', { password: 'pw' }))).body
    const draft = (await cal.create('/events', event('Draft', { status: 'draft' }))).body
    const anon = await changes(since)
    expect(anon.status).toBe(200)
    expect(anon.body).toEqual({
      changes: [
        { type: 'event', id: shown.id, action: 'created', modified_utc: expect.any(String) },
        { type: 'event', id: locked.id, action: 'created', modified_utc: expect.any(String) },
      ],
      next_since: expect.any(String),
      more: false,
    })
    expect(anon.body.changes[0].modified_utc).toBe(shown.modified_utc)
    expect(JSON.stringify(anon.body)).not.toMatch(/Locked|Shown/)
    expect(labels(await changes(since, true))).toEqual([
      `event.created:${shown.id}`,
      `event.created:${locked.id}`,
      `event.created:${draft.id}`,
    ])
    // Published → draft: deleted for the public, updated for a holder; trash: deleted for both.
    const t1 = anon.body.next_since
    await cal.call('POST', `/events/${shown.id}`, { body: { status: 'draft' }, token: true })
    await cal.call('DELETE', `/events/${draft.id}`, { token: true })
    expect(labels(await changes(t1))).toEqual([`event.deleted:${shown.id}`])
    expect(labels(await changes(t1, true))).toEqual([
      `event.updated:${shown.id}`,
      `event.deleted:${draft.id}`,
    ])
  })

  it('reports term deletes and venue and organizer trashes', async () => {
    const cat = (await cal.create('/categories', { name: 'Changes cat' })).body
    const venue = (await cal.create('/venues', { venue: 'Changes hall' })).body
    const org = (await cal.create('/organizers', { organizer: 'Changes org' })).body
    const e = (
      await cal.create(
        '/events',
        event('Linked', { categories: [cat.id], venue: venue.id, organizer: [org.id] }),
      )
    ).body
    const since = await token()
    await cal.call('DELETE', `/categories/${cat.id}`, { token: true })
    await cal.call('DELETE', `/venues/${venue.id}`, { token: true })
    await cal.call('DELETE', `/organizers/${org.id}`, { token: true })
    const got = labels(await changes(since))
    expect(got.sort()).toEqual(
      [
        `category.deleted:${cat.id}`,
        `event.updated:${e.id}`,
        `organizer.deleted:${org.id}`,
        `venue.deleted:${venue.id}`,
      ].sort(),
    )
  })

  it('pages with next_since and more, never past per_page', async () => {
    const since = await token()
    const made: number[] = []
    for (let i = 0; i < 5; i++) made.push((await cal.create('/events', event(`P${i}`))).body.id)
    const seen: number[] = []
    let next = since
    for (let pages = 0; ; pages++) {
      const page = await changes(next, false, 2)
      expect(page.body.changes.length).toBeLessThanOrEqual(2)
      seen.push(...page.body.changes.map((c: { id: number }) => c.id))
      next = page.body.next_since
      if (!page.body.more) break
      expect(pages).toBeLessThan(5)
    }
    expect(seen).toEqual(made)
  })

  it('refuses bad per_page with 400 naming it, and bad tokens with 410 sync-token-expired', async () => {
    const since = await token()
    for (const perPage of ['0', '501', '-1', '1.5', 'x', '', '99999999999999999999']) {
      const answer = await cal.get(
        `/changes?since=${encodeURIComponent(since)}&per_page=${perPage}`,
      )
      expect(answer.status, perPage).toBe(400)
      expect(answer.body.code).toBe('rest_invalid_param')
      expect(Object.keys(answer.body.data.params)).toEqual(['per_page'])
    }
    for (const perPage of ['1', '500']) {
      expect((await changes(since, false, Number(perPage))).status).toBe(200)
    }
    const empty = await cal.get('/changes?since=')
    expect(empty.status).toBe(400)
    expect(Object.keys(empty.body.data.params)).toEqual(['since'])
    expect((await cal.get(`/changes?since=a&since=b`)).status).toBe(400)
    const bad = await cal.get('/changes?per_page=0')
    expect(Object.keys(bad.body.data.params)).toEqual(['per_page'])
    const [revision, issued, mac] = since.split('.')
    for (const bad of [
      'garbage',
      '1',
      `${Number(revision) + 1}.${issued}.${mac}`,
      `${revision}.e1.${issued}.${mac}`,
      `s${revision}.${issued}.${mac}`,
      `${revision}.${issued}0.${mac}`,
      '\u0000',
      'ü'.repeat(300),
    ]) {
      const answer = await cal.get(`/changes?since=${encodeURIComponent(bad)}`)
      expect(answer.status, bad).toBe(bad === '\u0000' ? 400 : 410)
      if (answer.status === 410) {
        expect(answer.body).toMatchObject({ code: 'sync-token-expired', data: { status: 410 } })
      }
    }
  })

  it('without since: a full sync of what the caller sees, by key, then the feed', async () => {
    const made = [
      (await cal.create('/events', event('Full A'))).body,
      (await cal.create('/events', event('Full B', { password: 'pw' }))).body,
      (await cal.create('/events', event('Full C', { status: 'draft' }))).body,
    ]
    const sync = async (holder: boolean) => {
      const seen: { type: string; id: number; action: string; modified_utc: string }[] = []
      let answer = await cal.get('/changes?per_page=2', holder)
      for (let pages = 0; ; pages++) {
        expect(answer.status).toBe(200)
        expect(answer.body.changes.length).toBeLessThanOrEqual(2)
        seen.push(...answer.body.changes)
        if (!answer.body.more) return { seen, next: answer.body.next_since as string }
        expect(pages).toBeLessThan(200)
        answer = await changes(answer.body.next_since, holder, 2)
      }
    }
    const anon = await sync(false)
    const holder = await sync(true)
    const events = async (holder: boolean) => {
      const status = holder ? '&status=publish,draft,pending,private,future' : ''
      const path = `/events?start_date=1000-01-01&end_date=9999-12-31&per_page=50${status}`
      return (await cal.get(path, holder)).body.events.map((e: { id: number }) => e.id)
    }
    expect(anon.seen.filter((c) => c.type === 'event').map((c) => c.id)).toEqual(
      await events(false),
    )
    expect(holder.seen.filter((c) => c.type === 'event').map((c) => c.id)).toEqual(
      await events(true),
    )
    expect(anon.seen.every((c) => c.action === 'created')).toBe(true)
    const ids = anon.seen.map((c) => c.id)
    expect(ids).toContain(made[1].id)
    expect(ids).not.toContain(made[2].id)
    expect(holder.seen.map((c) => c.id)).toContain(made[2].id)
    // Password events by id and action only; each record with its own modified stamp.
    expect(JSON.stringify(anon.seen)).not.toMatch(/Full|pw/)
    expect(anon.seen.find((c) => c.id === made[0].id)?.modified_utc).toBe(made[0].modified_utc)
    // The sync's last token follows what comes after.
    const later = (await cal.create('/events', event('Full D'))).body
    expect(labels(await changes(anon.next))).toEqual([`event.created:${later.id}`])
  })

  it('is in the OpenAPI document and the namespace index', async () => {
    const doc = await cal.get('/doc')
    expect(
      doc.body.paths['/cal/events/v1/changes']?.get?.parameters?.map(
        (p: { name: string }) => p.name,
      ),
    ).toEqual(expect.arrayContaining(['since', 'per_page']))
    const index = await cal.get('')
    expect(Object.keys(index.body.routes)).toContain('/cal/events/v1/changes')
  })
})

// The fast mirror (issue 30): one handler, concurrent writers, an anonymous and a holder
// mirror; the process-level one is packages/cli/test/cal-changes-processes.slow.full.test.ts.
// One seed per database (CI's pinned one there), four in `pnpm test:full`.
const SEEDS = process.env.CAL_MIRROR_SEED
  ? [Number(process.env.CAL_MIRROR_SEED)]
  : seedRun('changes mirror', testLevel() === 'full' ? 4 : 1)

describe.each(testDatabases())('a changes mirror converges on $name', ({ open }) => {
  it.each(SEEDS)('seed %i', { timeout: 120_000 }, async (seed) => {
    const cal = await openCal(open)
    try {
      const call: MirrorCall = async (_client, method, path, options = {}) =>
        cal.call(method, path, { body: options.body, token: options.holder === true })
      const run = await runMirror({ call, seed, writers: 3, ops: 25 })
      const replay = `seed ${seed} (replay: CAL_MIRROR_SEED=${seed})`
      expect(run.diffs.join('\n'), replay).toBe('')
      // Nothing twice: every list the probe read during the writes shows its token's revision.
      expect(run.lists.filter((l) => l.duringWrites).length, replay).toBeGreaterThan(1)
      const { rows } = await sql<{
        id: string
        revision: string
        status: string | null
        modified: string
      }>`select record_id as id, revision, after_status as status,
          to_char(modified at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS') as modified
        from cal_change where kind = 'event' and revision is not null
        order by revision, seq`.execute(cal.database.db)
      const history: EventHistory = new Map()
      for (const r of rows) {
        const list = history.get(Number(r.id)) ?? []
        list.push({ revision: Number(r.revision), status: r.status, modified: r.modified })
        history.set(Number(r.id), list)
      }
      expect(listsAtTheirTokens(run.lists, history).join('\n'), replay).toBe('')
      // The full sync's 120 and more, then the writers' changes.
      expect(run.applied[1], replay).toBeGreaterThan(130)
    } finally {
      await cal.close()
    }
  })
})
