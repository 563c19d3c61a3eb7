import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  createKcoreStore,
  type KcoreStore,
  RefreshInProgressError,
  type SyncProgress,
  syncFromProvider,
} from '../src/index.js'
import { migrateKcore } from '../src/testing.js'
import { cliqueSnapshot, FakeProvider } from './fake-provider.js'
import { clearKcoreTables, secondConnection } from './helpers.js'

describe.each(testDatabases())('syncFromProvider on $name', ({ open }) => {
  let database: Database
  let store: KcoreStore

  beforeAll(async () => {
    database = await open(migrateKcore)
    store = createKcoreStore(database)
    await store.migrate()
  })
  afterAll(async () => {
    await database?.close()
  })
  beforeEach(async () => {
    await clearKcoreTables(database)
  })

  it('answers trends of every snapshot a sync stored, over two runs', async () => {
    const month = (i: number) =>
      `${2000 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}-01`
    const few = new FakeProvider()
    for (let i = 0; i < 3; i++) few.offer('ipv4', month(i), cliqueSnapshot(3 + (i % 3)))
    await syncFromProvider({ store, provider: few, ipVersions: ['ipv4'] })
    const more = new FakeProvider()
    for (let i = 0; i < 7; i++) more.offer('ipv4', month(i), cliqueSnapshot(3 + (i % 3)))
    const results = await syncFromProvider({ store, provider: more, ipVersions: ['ipv4'] })
    expect(results.ipv4?.added).toHaveLength(4)
    const reader = await store.reader()
    const { trends } = await reader.trends('ipv4', [1, 5])
    expect(trends.get(1)).toHaveLength(7)
    expect(trends.get(5)?.map((p) => p.date)).toEqual(
      Array.from({ length: 7 }, (_, i) => month(i)).filter((_, i) => 3 + (i % 3) >= 5),
    )
  })

  it('stores several new months oldest first, whatever the listing order and holes', async () => {
    const provider = new FakeProvider()
      .offer('ipv4', '2024-03-01', cliqueSnapshot(5))
      .offer('ipv4', '2024-01-01', cliqueSnapshot(3))
      .offer('ipv4', '2024-06-01', cliqueSnapshot(4))
      .offer('ipv6', '2024-02-01', cliqueSnapshot(2))
    const progress: SyncProgress[] = []
    const results = await syncFromProvider({
      store,
      provider,
      ipVersions: ['ipv4', 'ipv6'],
      onProgress: (p) => progress.push(p),
    })
    expect(results).toEqual({
      ipv4: {
        checked: true,
        added: ['2024-01-01', '2024-03-01', '2024-06-01'],
        latestDate: '2024-06-01',
        error: null,
        failures: [],
      },
      ipv6: {
        checked: true,
        added: ['2024-02-01'],
        latestDate: '2024-02-01',
        error: null,
        failures: [],
      },
    })
    expect(progress.map((p) => [p.ipVersion, p.date, p.done, p.total, p.ok])).toEqual([
      ['ipv4', '2024-01-01', 1, 3, true],
      ['ipv4', '2024-03-01', 2, 3, true],
      ['ipv4', '2024-06-01', 3, 3, true],
      ['ipv6', '2024-02-01', 1, 1, true],
    ])
    const trends = (await (await store.reader()).trends('ipv4', [3, 100])).trends
    expect(trends.get(3)?.map((p) => [p.date, p.shell_index, p.max_shell_index])).toEqual([
      ['2024-01-01', 2, 2],
      ['2024-03-01', 4, 4],
      ['2024-06-01', 3, 3],
    ])
    expect(trends.get(100)?.map((p) => p.normalized_shell_index)).toEqual([1 / 2, 1 / 4, 1 / 3])
    const snapshots = await (await store.reader()).snapshots('ipv4')
    expect(snapshots.map((s) => [s.source, s.unique_asns, s.link_count])).toEqual([
      ['20240101.as-rel.txt.bz2', 4, 4],
      ['20240301.as-rel.txt.bz2', 6, 11],
      ['20240601.as-rel.txt.bz2', 5, 7],
    ])
    expect((await (await store.reader()).snapshots('ipv6'))[0]?.source).toBe(
      '20240201.as-rel.v6-stable.txt.bz2',
    )
  })

  it('fetches only dates not stored yet, from the given date on', async () => {
    const provider = new FakeProvider()
      .offer('ipv4', '2023-12-01', cliqueSnapshot(3))
      .offer('ipv4', '2024-01-01', cliqueSnapshot(3))
    const first = await syncFromProvider({ store, provider, ipVersions: ['ipv4'], from: '2024-01' })
    expect(first.ipv4?.added).toEqual(['2024-01-01'])
    provider.offer('ipv4', '2024-02-01', cliqueSnapshot(4))
    const second = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
    expect(second.ipv4).toMatchObject({
      checked: true,
      added: ['2023-12-01', '2024-02-01'],
      latestDate: '2024-02-01',
    })
    const third = await syncFromProvider({ store, provider, ipVersions: ['ipv4', 'ipv4'] })
    expect(third).toEqual({
      ipv4: { checked: true, added: [], latestDate: '2024-02-01', error: null, failures: [] },
    })
    expect(provider.opened).toEqual(['ipv4 2024-01-01', 'ipv4 2023-12-01', 'ipv4 2024-02-01'])
    await expect(
      syncFromProvider({ store, provider, ipVersions: ['ipv4'], from: 'January' }),
    ).rejects.toThrow(RangeError)
    await expect(
      syncFromProvider({ store, provider, ipVersions: ['ipv7' as 'ipv4'] }),
    ).rejects.toThrow(/ipVersion/)
  })

  it('reports a corrupt file, stores the others, and picks it up once fixed', async () => {
    const provider = new FakeProvider()
      .offer('ipv4', '2024-01-01', cliqueSnapshot(3))
      .offer('ipv4', '2024-02-01', `${cliqueSnapshot(4)}5|6|banana\n`)
      .offer('ipv4', '2024-03-01', cliqueSnapshot(5))
    const progress: SyncProgress[] = []
    const results = await syncFromProvider({
      store,
      provider,
      ipVersions: ['ipv4'],
      onProgress: (p) => progress.push(p),
    })
    expect(results.ipv4).toMatchObject({
      checked: false,
      added: ['2024-01-01', '2024-03-01'],
      latestDate: '2024-03-01',
    })
    expect(results.ipv4?.failures.map((f) => f.date)).toEqual(['2024-02-01'])
    expect(results.ipv4?.failures[0]?.error).toMatch(/line/i)
    expect(results.ipv4?.error).toContain('2024-02-01')
    expect(progress.map((p) => p.ok)).toEqual([true, false, true])
    expect(progress[1]?.error).toBe(results.ipv4?.failures[0]?.error)
    expect(await (await store.reader()).storedDates('ipv4')).toEqual(['2024-01-01', '2024-03-01'])
    expect((await (await store.reader()).trends('ipv4', [5, 6])).known.size).toBe(1) // AS 5 from March only

    provider.offer('ipv4', '2024-02-01', cliqueSnapshot(4))
    const retry = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
    expect(retry.ipv4).toEqual({
      checked: true,
      added: ['2024-02-01'],
      latestDate: '2024-03-01',
      error: null,
      failures: [],
    })
  })

  it('marks a version unchecked when its listing fails and still syncs the other', async () => {
    const provider = new FakeProvider().offer('ipv6', '2024-01-01', cliqueSnapshot(3))
    await store.ingest({
      ipVersion: 'ipv4',
      date: '2020-01-01',
      decomposition: { asns: Uint32Array.of(7), shells: Uint32Array.of(0), maxShell: 0 },
      linkCount: 0,
    })
    provider.listError.ipv4 = new Error('provider unreachable: ECONNREFUSED')
    const results = await syncFromProvider({ store, provider, ipVersions: ['ipv4', 'ipv6'] })
    expect(results.ipv4).toEqual({
      checked: false,
      added: [],
      latestDate: '2020-01-01',
      error: expect.stringContaining('ECONNREFUSED'),
      failures: [],
    })
    expect(results.ipv6).toMatchObject({ checked: true, added: ['2024-01-01'] })
  })

  it('refuses to run while the refresh lock is held', async () => {
    const provider = new FakeProvider().offer('ipv4', '2024-01-01', cliqueSnapshot(3))
    const outer = await database.tryWithLock('kcore:refresh', () =>
      syncFromProvider({ store, provider, ipVersions: ['ipv4'] }).then(
        () => 'ran',
        (error: unknown) => error,
      ),
    )
    expect(outer.acquired).toBe(true)
    expect(outer.acquired && outer.value).toBeInstanceOf(RefreshInProgressError)
    expect(provider.opened).toEqual([])
    expect(await (await store.reader()).storedDates('ipv4')).toEqual([])
  })

  it('ingests each snapshot exactly once when two stores sync at the same time', async () => {
    const other = await secondConnection(database)
    try {
      const otherStore = createKcoreStore(other)
      const provider = new FakeProvider()
        .offer('ipv4', '2024-01-01', cliqueSnapshot(3))
        .offer('ipv4', '2024-02-01', cliqueSnapshot(4))
      let release = () => {}
      provider.gate = new Promise<void>((resolve) => (release = resolve))
      const a = syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
      // Wait until the first run is inside the lock (it is fetching), then start the second.
      await vi.waitFor(() => expect(provider.opened).not.toEqual([]), { timeout: 10_000 })
      const b = syncFromProvider({ store: otherStore, provider, ipVersions: ['ipv4'] })
      await expect(b).rejects.toBeInstanceOf(RefreshInProgressError)
      release()
      expect((await a).ipv4?.added).toEqual(['2024-01-01', '2024-02-01'])
      const after = await syncFromProvider({ store: otherStore, provider, ipVersions: ['ipv4'] })
      expect(after.ipv4?.added).toEqual([])
      expect(provider.opened).toEqual(['ipv4 2024-01-01', 'ipv4 2024-02-01'])
    } finally {
      await other.close()
    }
  })

  it('stops on abort without storing the snapshot in flight', async () => {
    const provider = new FakeProvider()
      .offer('ipv4', '2024-01-01', cliqueSnapshot(3))
      .offer('ipv4', '2024-02-01', cliqueSnapshot(4))
    const controller = new AbortController()
    const run = syncFromProvider({
      store,
      provider,
      ipVersions: ['ipv4'],
      signal: controller.signal,
      onProgress: () => controller.abort(new Error('stopped by test')),
    })
    await expect(run).rejects.toThrow('stopped by test')
    expect(await (await store.reader()).storedDates('ipv4')).toEqual(['2024-01-01'])
    // the next snapshot may have been fetched ahead (decoding overlaps storing), never stored
    expect(provider.opened[0]).toBe('ipv4 2024-01-01')
    // The lock was released: the next run finishes the job.
    const next = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
    expect(next.ipv4?.added).toEqual(['2024-02-01'])
  })
})
