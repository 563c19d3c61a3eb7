import type { Database } from '@kcore/db'
import { openPostgresDatabase } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import {
  createKcoreStore,
  createScheduler,
  createSyncRunner,
  DEFAULT_SCHEDULER,
  KcoreConfigError,
  type KcoreStore,
} from '@kcore/store'
import { sql } from 'kysely'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  caidaFile,
  caller,
  clearStore,
  createMirror,
  emptyProvider,
  fileProvider,
  gatedProvider,
  kcoreHandler,
  type Mirror,
  openStore,
  type TestStore,
} from './kcore-helpers.js'

const v4 = (yyyymmdd: string) => `${yyyymmdd}.as-rel.txt.bz2`
const clock = () => new Date('2026-03-10T07:00:00Z')

describe('scheduler configuration', () => {
  const store = {} as KcoreStore

  it.each(['0 6 * *', '0 0 6 * * *', '99 * * * *', 'daily', ''])(
    'refuses cron %j at creation with a KcoreConfigError',
    (schedule) => {
      const runner = createSyncRunner(store, emptyProvider)
      expect(() =>
        createScheduler({ enabled: true, schedule }, { runner, now: clock, onError: () => {} }),
      ).toThrow(KcoreConfigError)
    },
  )
})

describe.each(testDatabases())('scheduler endpoints on $name', ({ open }) => {
  let store: TestStore
  let mirror: Mirror
  beforeAll(async () => {
    store = await openStore(open)
  })
  afterAll(async () => {
    await store?.database.close()
  })
  beforeEach(async () => {
    await clearStore(store)
    mirror = await createMirror()
  })
  afterEach(async () => {
    await mirror.remove()
  })

  it('reports the default daily schedule and its next run in UTC', async () => {
    const handler = kcoreHandler(store, { now: clock, schedule: DEFAULT_SCHEDULER })
    const res = await caller(handler)('/api/scheduler/status')
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      running: false,
      enabled: true,
      next_run: '2026-03-11T06:00:00.000Z',
      schedule: '0 6 * * *',
    })
    await handler.close()
  })

  it('reports a custom schedule, and null next_run when disabled', async () => {
    const custom = kcoreHandler(store, {
      now: clock,
      schedule: { enabled: true, schedule: '15 */4 * * *' },
    })
    expect((await caller(custom)('/api/scheduler/status')).body).toMatchObject({
      enabled: true,
      next_run: '2026-03-10T08:15:00.000Z',
      schedule: '15 */4 * * *',
    })
    await custom.close()
    const off = kcoreHandler(store, { now: clock })
    expect((await caller(off)('/api/scheduler/status')).body).toEqual({
      running: false,
      enabled: false,
      next_run: null,
      schedule: '0 6 * * *',
    })
    await off.close()
  })

  it('runs a manual update check of both versions', async () => {
    await mirror.add(caidaFile('19980101'), v4('19980101'))
    await mirror.add(caidaFile('19990201'), v4('19980201'))
    const handler = kcoreHandler(store, { provider: fileProvider(mirror), now: clock })
    const call = caller(handler)
    const res = await call('/api/scheduler/update', {
      method: 'POST',
      body: '',
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      triggered: true,
      results: {
        ipv4: { checked: true, updated: true, new_snapshots: 2, error: null, success: true },
        ipv6: { checked: true, updated: false, new_snapshots: 0, error: null, success: true },
      },
      timestamp: '2026-03-10T07:00:00.000Z',
      success: true,
    })
    expect((await call('/api/summary')).body.ipv4.snapshot_count).toBe(2)
    const again = await call('/api/scheduler/update', { method: 'POST' })
    expect(again.body.results.ipv4).toMatchObject({ updated: false, new_snapshots: 0 })
    await handler.close()
  })

  it('reports a failing provider in the update results', async () => {
    await mirror.write(v4('19980101'), 'not|a|relationship|file|at all\n')
    const handler = kcoreHandler(store, { provider: fileProvider(mirror), now: clock })
    const res = await caller(handler)('/api/scheduler/update', { method: 'POST' })
    expect(res.status).toBe(200)
    expect(res.body.success).toBe(false)
    expect(res.body.results.ipv4).toMatchObject({ checked: false, updated: false, success: false })
    expect(res.body.results.ipv4.error).toContain('1998-01-01')
    expect(res.body.results.ipv6.success).toBe(true)
    await handler.close()
  })

  it('shows running while a check runs, answers 409 to another, and close() waits for it', async () => {
    await mirror.add(caidaFile('19980101'), v4('19980101'))
    const gated = gatedProvider(fileProvider(mirror))
    const handler = kcoreHandler(store, { provider: gated.provider })
    const call = caller(handler)
    const update = call('/api/scheduler/update', { method: 'POST' })
    await gated.listing
    expect((await call('/api/scheduler/status')).body.running).toBe(true)
    expect((await call('/api/scheduler/update', { method: 'POST' })).status).toBe(409)
    expect((await call('/api/refresh', { method: 'POST' })).status).toBe(409)
    let closed = false
    const closing = handler.close().then(() => {
      closed = true
    })
    await new Promise((resolve) => setImmediate(resolve))
    expect(closed).toBe(false)
    gated.release()
    await closing
    expect(closed).toBe(true)
    expect((await update).body.results.ipv4.new_snapshots).toBe(1)
    expect((await (await store.reader()).snapshots('ipv4')).map((s) => s.date)).toEqual([
      '1998-01-01',
    ])
  })
})

const pgUrl = process.env.DATABASE_URL
const postgres = testDatabases().find((d) => d.name === 'postgres')

describe.skipIf(!postgres)('two handler instances on one PostgreSQL database', () => {
  let first: Database
  let second: Database
  let stores: TestStore[]
  let mirror: Mirror

  beforeAll(async () => {
    first = await postgres!.open()
    const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(
      first.db,
    )
    const url = new URL(pgUrl!)
    url.pathname = `/${rows[0]!.name}`
    second = openPostgresDatabase(url.toString())
    stores = [first, second].map((database) =>
      Object.assign(createKcoreStore(database), { database }),
    )
    await Promise.all(stores.map((s) => s.migrate()))
    mirror = await createMirror()
    for (const [file, name] of [
      ['19980101', '19980101'],
      ['19990201', '19980201'],
      ['20000101', '19980301'],
      ['19980101', '19980401'],
    ] as const) {
      await mirror.add(caidaFile(file), v4(name))
    }
  })
  afterAll(async () => {
    await second?.close()
    await first?.close()
    await mirror?.remove()
  })

  it('locks across processes: one refresh at a time, each snapshot ingested once', async () => {
    const gated = gatedProvider(fileProvider(mirror))
    const a = kcoreHandler(stores[0]!, { provider: gated.provider })
    const b = kcoreHandler(stores[1]!, { provider: fileProvider(mirror) })
    const held = caller(a)('/api/refresh', { method: 'POST', json: { ip_versions: ['ipv4'] } })
    await gated.listing
    const blocked = await caller(b)('/api/refresh', { method: 'POST' })
    expect(blocked.status).toBe(409)
    expect(blocked.body.error).toBe('refresh_in_progress')
    gated.release()
    expect((await held).body.ipv4.snapshots_added).toBe(4)

    await clearStore(stores[0]!)
    const results = await Promise.all([
      caller(a)('/api/refresh', { method: 'POST' }),
      caller(b)('/api/refresh', { method: 'POST' }),
      caller(b)('/api/scheduler/update', { method: 'POST' }),
    ])
    const added = results
      .filter((r) => r.status === 200)
      .reduce(
        (n, r) => n + (r.body.ipv4?.snapshots_added ?? r.body.results?.ipv4.new_snapshots ?? 0),
        0,
      )
    expect(results.every((r) => r.status === 200 || r.status === 409)).toBe(true)
    expect(added).toBe(4)
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from kcore_snapshot`.execute(first.db)
    expect(rows[0]!.n).toBe(4)
    await a.close()
    await b.close()
  })
})
