import { testDatabases } from '@kcore/db/testing'
import type { SnapshotRef } from '@kcore/engine'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { syncFromProvider } from '../src/index.js'
import { cliqueSnapshot, FakeProvider } from './fake-provider.js'
import { clearKcoreTables, openStore, rowsOfDate, type TestStore } from './helpers.js'

/**
 * A provider whose listed files can stall: `open()` of a stalled date (or `list()` when
 * `stallListing`) never answers; only the caller's signal ends it, as with a server that
 * sends nothing.
 */
class StallingProvider extends FakeProvider {
  readonly stalled = new Set<string>()
  stallListing = false
  /** Resolves each time a request stalls. */
  onStall: () => void = () => {}

  private stall(signal?: AbortSignal): Promise<never> {
    const stalled = new Promise<never>((_, reject) => {
      if (signal?.aborted) reject(signal.reason)
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true })
    })
    this.onStall()
    return stalled
  }
  override async list(ipVersion: 'ipv4' | 'ipv6', options?: { signal?: AbortSignal }) {
    if (this.stallListing) return this.stall(options?.signal)
    return super.list(ipVersion)
  }
  override async open(ref: SnapshotRef, options?: { signal?: AbortSignal }) {
    if (this.stalled.has(`${ref.ipVersion} ${ref.date}`)) {
      this.opened.push(`${ref.ipVersion} ${ref.date}`)
      return this.stall(options?.signal)
    }
    return super.open(ref)
  }
}

describe.each(testDatabases())('refresh deadline on $name', ({ open }) => {
  let store: TestStore

  beforeAll(async () => {
    store = await openStore(open)
  })
  afterAll(async () => {
    await store?.database.close()
  })
  beforeEach(async () => {
    await clearKcoreTables(store.database)
  })

  it('gives up a stalled file at the deadline, keeps and reports what it stored, and stores the rest later', async () => {
    const provider = new StallingProvider()
      .offer('ipv4', '2024-01-01', cliqueSnapshot(5))
      .offer('ipv4', '2024-02-01', cliqueSnapshot(5))
      .offer('ipv4', '2024-03-01', cliqueSnapshot(5))
      .offer('ipv6', '2024-01-01', cliqueSnapshot(3))
    provider.stalled.add('ipv4 2024-02-01')
    // generous for two tiny ingests on a loaded machine, short for a test
    const deadlineMs = 3_000
    const results = await syncFromProvider({
      store,
      provider,
      ipVersions: ['ipv4', 'ipv6'],
      deadlineMs,
    })
    expect(results).toEqual({
      ipv4: {
        checked: false,
        added: ['2024-01-01'],
        latestDate: '2024-01-01',
        error: `refresh deadline of ${deadlineMs} ms passed; stored before it: 2024-01-01`,
        failures: [],
      },
      // the version after the deadline is not even listed
      ipv6: {
        checked: false,
        added: [],
        latestDate: null,
        error: `refresh deadline of ${deadlineMs} ms passed; stored before it: nothing`,
        failures: [],
      },
    })
    // fetched ahead of the stalled one (one per decode worker), never stored
    expect(provider.opened.slice(0, 2)).toEqual(['ipv4 2024-01-01', 'ipv4 2024-02-01'])
    for (const date of ['2024-02-01', '2024-03-01'])
      expect(await rowsOfDate(store.database, 'ipv4', date)).toEqual({ snapshots: 0, shells: 0 })

    provider.stalled.clear()
    const next = await syncFromProvider({
      store,
      provider,
      ipVersions: ['ipv4', 'ipv6'],
      deadlineMs,
    })
    expect(next.ipv4).toMatchObject({
      checked: true,
      added: ['2024-02-01', '2024-03-01'],
      error: null,
    })
    expect(next.ipv6).toMatchObject({ checked: true, added: ['2024-01-01'], error: null })
  })

  it('gives up a stalled listing at the deadline and frees the refresh lock', async () => {
    const provider = new StallingProvider().offer('ipv4', '2024-01-01', cliqueSnapshot(5))
    provider.stallListing = true
    const results = await syncFromProvider({
      store,
      provider,
      ipVersions: ['ipv4'],
      deadlineMs: 200,
    })
    expect(results.ipv4).toEqual({
      checked: false,
      added: [],
      latestDate: null,
      error: 'refresh deadline of 200 ms passed; stored before it: nothing',
      failures: [],
    })
    provider.stallListing = false
    const next = await syncFromProvider({
      store,
      provider,
      ipVersions: ['ipv4'],
      deadlineMs: 60_000,
    })
    expect(next.ipv4).toMatchObject({ checked: true, added: ['2024-01-01'] })
  })

  it('an abort by the caller still rejects, deadline or not', async () => {
    const provider = new StallingProvider().offer('ipv4', '2024-01-01', cliqueSnapshot(5))
    provider.stallListing = true
    const controller = new AbortController()
    provider.onStall = () => controller.abort(new Error('caller gave up'))
    await expect(
      syncFromProvider({
        store,
        provider,
        ipVersions: ['ipv4'],
        deadlineMs: 60_000,
        signal: controller.signal,
      }),
    ).rejects.toThrow('caller gave up')
  })

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses deadlineMs %s before doing anything',
    async (deadlineMs) => {
      const provider = new StallingProvider()
      await expect(
        syncFromProvider({ store, provider, ipVersions: ['ipv4'], deadlineMs }),
      ).rejects.toThrow(RangeError)
      expect(provider.opened).toEqual([])
    },
  )
})
