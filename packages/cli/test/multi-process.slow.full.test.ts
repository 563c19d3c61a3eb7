import { availableParallelism } from 'node:os'
import { testLevel } from '@kcore/db/testing'
import { type IpVersion, parseSnapshotFileName } from '@kcore/engine'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createSameTitle,
  createWithSameNewRecords,
  FIELD_UPDATES,
  updateConcurrently,
} from './calendar-races.js'
import { ingestWrites, installIngestAudit } from './ingest-audit.js'
import type { Answer, KcoreServer } from './kcore-process.js'
import { startServer } from './kcore-process.js'
import { refreshLockIsFree } from './refresh-lock.js'
import { refreshStorm } from './refresh-storm.js'
import { caida, createSnapshotMirror, type SnapshotMirror } from './snapshot-mirror.js'
import { expectedFigures, knownAsnDrift, storedSnapshots } from './stored-snapshots.js'
import { createThrowawayPostgres, type ThrowawayPostgres } from './throwaway-postgres.js'
import { waitUntil } from './wait-until.js'

// Issue 6, item 3: several `kcore serve` processes on one PostgreSQL database. Refreshes,
// manual update checks and cron ticks fired at all of them at once store each snapshot exactly
// once; concurrent calendar writes get unique slugs and lose no update.

const DATABASE_URL = process.env.DATABASE_URL
const ADMIN_TOKEN = 'multi-process-admin-token'
const CAL_TOKEN = 'multi-process-cal-token'

/** A snapshot the mirror offers. */
interface Offered {
  path: string
  ipVersion: IpVersion
  date: string
}

describe.skipIf(!DATABASE_URL)('many kcore serve processes on one PostgreSQL', () => {
  let pg: ThrowawayPostgres
  let mirror: SnapshotMirror
  let servers: KcoreServer[] = []
  const offered: Offered[] = []

  beforeAll(async () => {
    pg = await createThrowawayPostgres(DATABASE_URL!)
    mirror = await createSnapshotMirror()
  })
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.process.kill('SIGKILL')))
    await mirror?.close()
    await pg?.drop()
  })

  /** Offers real CAIDA files (by name) and returns what they are. */
  async function offer(...names: string[]): Promise<Offered[]> {
    const added = []
    for (const name of names) {
      const info = parseSnapshotFileName(name)
      if (!info) throw new Error(`not a CAIDA snapshot name: ${name}`)
      await mirror.offer(caida(name))
      added.push({ path: caida(name), ipVersion: info.ipVersion, date: info.date })
    }
    offered.push(...added)
    return added
  }

  /** Starts `n` servers at the same time (their migrations race too). */
  async function start(n: number, schedule?: string): Promise<KcoreServer[]> {
    servers = await Promise.all(
      Array.from({ length: n }, () =>
        startServer({
          databaseUrl: pg.url,
          providerUrl: mirror.url,
          schedule,
          adminToken: ADMIN_TOKEN,
          calTokens: [CAL_TOKEN],
        }),
      ),
    )
    return servers
  }

  async function stopAll(): Promise<void> {
    const exits = await Promise.all(servers.map((s) => s.stop()))
    for (const exit of exits) expect(exit).toEqual({ code: 0, signal: null })
    servers = []
  }

  /** Every answer is a success or the documented 409; returns the successes. */
  function successesOf(answers: Answer[]): Answer[] {
    for (const answer of answers) {
      if (answer.status === 200) continue
      expect(answer).toMatchObject({ status: 409, body: { error: 'refresh_in_progress' } })
    }
    return answers.filter((a) => a.status === 200)
  }

  /** Dates stored by the refresh answers, each at most once across all of them. */
  function refreshedDates(answers: Answer[], version: IpVersion): string[] {
    const dates = successesOf(answers).flatMap((a) => a.body[version]?.processed_dates ?? [])
    expect(new Set(dates).size).toBe(dates.length)
    return dates.sort()
  }

  const datesOf = (list: Offered[], version: IpVersion) =>
    list
      .filter((o) => o.ipVersion === version)
      .map((o) => o.date)
      .sort()

  /** The database holds every offered snapshot whole, each ingested by exactly one writer. */
  async function expectEachSnapshotStoredOnce(): Promise<void> {
    // A cron tick may still be finishing; its ingests count too.
    await waitUntil('the refresh lock to be free', () => refreshLockIsFree(pg.database))
    const expected = await Promise.all(
      offered.map((o) => expectedFigures(o.path, o.ipVersion, o.date)),
    )
    const order = (a: { ip_version: string; date: string }, b: typeof a) =>
      `${a.ip_version} ${a.date}` < `${b.ip_version} ${b.date}` ? -1 : 1
    expect(await storedSnapshots(pg.database)).toEqual(expected.sort(order))
    expect(await ingestWrites(pg.database)).toEqual(
      offered.map((o) => ({ ip_version: o.ipVersion, date: o.date, op: 'INSERT' })).sort(order),
    )
    expect(await knownAsnDrift(pg.database)).toBe(0)
    // Every provider request is made under the refresh lock: one refresh lists at a time, and
    // its downloads overlap only by its own look-ahead (one snapshot per decode worker).
    expect(mirror.maxConcurrentListings).toBe(1)
    expect(mirror.maxConcurrent).toBeLessThanOrEqual(availableParallelism() + 1)
  }

  /** One events list page from every server (each keeps its own list cache). */
  function listEverywhere(query: Record<string, string>): Promise<Answer[]> {
    const search = new URLSearchParams(query).toString()
    return Promise.all(servers.map((s) => s.call(`/cal/events/v1/events?${search}`)))
  }

  /** `count` events with one title across all servers: all created, slugs distinct. */
  async function expectUniqueSlugs(title: string, base: string, count: number): Promise<void> {
    // Warm every process's list cache first: a write elsewhere must still show at once.
    const window = { search: title, start_date: '2026-01-01', end_date: '2026-12-31' }
    for (const list of await listEverywhere(window)) expect(list.body.total).toBe(0)
    const answers = await createSameTitle(servers, CAL_TOKEN, title, count)
    expect(answers.map((a) => a.status)).toEqual(Array(count).fill(201))
    const slugs = answers.map((a) => a.body.slug as string)
    expect(new Set(slugs).size).toBe(count)
    // First free suffix each time, so no gaps either: base, base-2, …, base-count.
    const wanted = [base, ...Array.from({ length: count - 1 }, (_, i) => `${base}-${i + 2}`)]
    expect([...slugs].sort()).toEqual(wanted.sort())
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from cal_event where title = ${title}`.execute(pg.database.db)
    expect(rows[0]!.n).toBe(count)
    for (const list of await listEverywhere(window)) expect(list.body.total).toBe(count)
  }

  /** Events created at once naming the same new venue, organizer and terms share one of each. */
  async function expectInlineRecordsShared(prefix: string, count: number): Promise<void> {
    const answers = await createWithSameNewRecords(servers, CAL_TOKEN, prefix, count)
    expect(answers.map((a) => a.status)).toEqual(Array(count).fill(201))
    const distinct = (values: unknown[]) => new Set(values).size
    const bodies = answers.map((a) => a.body)
    expect(distinct(bodies.map((e) => e.venue.id))).toBe(1)
    expect(distinct(bodies.map((e) => e.organizer[0].id))).toBe(1)
    expect(distinct(bodies.map((e) => e.categories[0].id))).toBe(1)
    expect(distinct(bodies.map((e) => e.tags[0].id))).toBe(1)
    const { rows } = await sql<{ n: number }>`
      select (select count(*) from cal_venue where name = ${`${prefix} Hall`})
           + (select count(*) from cal_organizer where name = ${`${prefix} Org`})
           + (select count(*) from cal_term where name in (${`${prefix} category`}, ${`${prefix} tag`}))
           as n`.execute(pg.database.db)
    expect(Number(rows[0]!.n)).toBe(4)
  }

  /** Concurrent updates of distinct fields all land; same-field updates never tear a record. */
  async function expectNoLostUpdate(): Promise<void> {
    const created = await servers[0]!.call('/cal/events/v1/events', {
      method: 'POST',
      token: CAL_TOKEN,
      json: { title: 'Race target', start_date: '2026-07-01 10:00', end_date: '2026-07-01 12:00' },
    })
    expect(created.status).toBe(201)
    const id = created.body.id as number
    for (const list of await listEverywhere({ include: String(id) })) {
      expect(list.body.events).toEqual([expect.objectContaining({ id, featured: false })])
    }

    const answers = await updateConcurrently(servers, CAL_TOKEN, id, FIELD_UPDATES)
    expect(answers.map((a) => a.status)).toEqual(Array(FIELD_UPDATES.length).fill(200))
    const event = (await servers[servers.length - 1]!.call(`/cal/events/v1/events/${id}`)).body
    expect(event).toMatchObject({
      title: 'Renamed concurrently',
      description: 'Description written concurrently',
      excerpt: 'Excerpt written concurrently',
      website: 'https://example.org/concurrent',
      cost: '12$',
      featured: true,
      sticky: true,
      ticketed: true,
      show_map: true,
      show_map_link: true,
      categories: [expect.objectContaining({ name: 'Concurrency category' })],
      tags: [expect.objectContaining({ name: 'Concurrency tag' })],
      venue: expect.objectContaining({ venue: 'Concurrency Hall', city: 'Lisbon' }),
      organizer: [expect.objectContaining({ organizer: 'Concurrency Org' })],
      // The slug stays what it was: updates of the title do not rename it.
      slug: created.body.slug,
    })

    // Same field from everywhere: the last writer wins whole, so the two fields written
    // together by each update still agree at the end.
    const values = servers.flatMap((_, s) => [`v${s}a`, `v${s}b`])
    const same = await updateConcurrently(
      servers,
      CAL_TOKEN,
      id,
      values.map((v) => ({ description: v, excerpt: v })),
    )
    expect(same.map((a) => a.status)).toEqual(Array(values.length).fill(200))
    const final = (await servers[0]!.call(`/cal/events/v1/events/${id}`)).body
    expect(values).toContain(final.description)
    expect(final.excerpt).toBe(final.description)
    expect(final.title).toBe('Renamed concurrently')
    // Every process lists the record as it is now, whatever its cache held before.
    for (const list of await listEverywhere({ include: String(id) })) {
      expect(list.body.events).toEqual([
        expect.objectContaining({ id, description: final.description, featured: true }),
      ])
    }
  }

  it('two processes: one refresh and one update check at a time, calendar races', async () => {
    await start(2)
    await installIngestAudit(pg.database)
    expect((await servers[0]!.call('/api/refresh', { method: 'POST' })).status).toBe(401)

    // Out of order and with holes, as CAIDA publishes; both IP versions.
    const first = await offer(
      '20000101.as-rel.txt.bz2',
      '20020101.as-rel.txt.bz2',
      '20220601.as-rel.v6-stable.txt.bz2',
    )
    const refreshes = await refreshStorm(servers, mirror, {
      path: '/api/refresh',
      token: ADMIN_TOKEN,
    })
    // No scheduler here: exactly one call wins the lock, the other gets the 409.
    expect(successesOf(refreshes)).toHaveLength(1)
    expect(refreshedDates(refreshes, 'ipv4')).toEqual(datesOf(first, 'ipv4'))
    expect(refreshedDates(refreshes, 'ipv6')).toEqual(datesOf(first, 'ipv6'))

    await offer('19980101.as-rel.txt.bz2', '20010101.as-rel.txt.bz2')
    const updates = await refreshStorm(servers, mirror, {
      path: '/api/scheduler/update',
      token: ADMIN_TOKEN,
    })
    const [update] = successesOf(updates)
    expect(successesOf(updates)).toHaveLength(1)
    expect(update!.body).toMatchObject({
      triggered: true,
      success: true,
      results: {
        ipv4: { checked: true, updated: true, new_snapshots: 2, error: null },
        ipv6: { checked: true, updated: false, new_snapshots: 0, error: null },
      },
    })
    await expectEachSnapshotStoredOnce()

    await expectUniqueSlugs('Two-process launch party', 'two-process-launch-party', 20)
    await expectInlineRecordsShared('Two-process', 20)
    await expectNoLostUpdate()
    await stopAll()
  })

  it('four processes with a cron every minute: refreshes, update checks and ticks at once', async () => {
    // Every process ticks at second 0 of each minute; a tick may also win any storm below.
    await start(4, '* * * * *')

    const third = await offer('20030101.as-rel.txt.bz2', '20040101.as-rel.txt.bz2')
    const refreshes = await refreshStorm(servers, mirror, {
      path: '/api/refresh',
      json: { ip_versions: ['ipv4'] },
      token: ADMIN_TOKEN,
    })
    expect(successesOf(refreshes).length).toBeLessThanOrEqual(1)
    for (const date of refreshedDates(refreshes, 'ipv4'))
      expect(datesOf(third, 'ipv4')).toContain(date)
    await expectEachSnapshotStoredOnce()

    await offer('20050101.as-rel.txt.bz2')
    const updates = await refreshStorm(servers, mirror, {
      path: '/api/scheduler/update',
      token: ADMIN_TOKEN,
    })
    const added = successesOf(updates).map((a) => a.body.results.ipv4.new_snapshots as number)
    expect(added.length).toBeLessThanOrEqual(1)
    expect(added.every((n) => n <= 1)).toBe(true)
    await expectEachSnapshotStoredOnce()

    await expectUniqueSlugs('Four-process launch party', 'four-process-launch-party', 60)
    await expectInlineRecordsShared('Four-process', 40)
    await expectNoLostUpdate()

    await stopAll()
  }, 150_000)

  // Waits for a minute boundary (30 s on average), so it runs in `pnpm test:full`; the storms
  // above hold the same lock with the cron set in every process.
  it.skipIf(testLevel() !== 'full')(
    'four processes: a cron tick stores a new snapshot once',
    async () => {
      await start(4, '* * * * *')
      // Nothing but the cron ingests from here on: the next tick fires in all four processes.
      const [ticked] = await offer('20060101.as-rel.txt.bz2')
      await waitUntil(
        `a cron tick to store ${ticked!.date}`,
        async () => {
          const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from kcore_snapshot where date = ${ticked!.date}`.execute(
            pg.database.db,
          )
          return rows[0]!.n > 0
        },
        { timeoutMs: 90_000, everyMs: 250 },
      )
      await expectEachSnapshotStoredOnce()
      for (const server of servers) {
        const status = (await server.call('/api/scheduler/status')).body
        expect(status).toMatchObject({ enabled: true, schedule: '* * * * *' })
      }
      await stopAll()
    },
    150_000,
  )
})
