import { readFile } from 'node:fs/promises'
import { testDatabases } from '@kcore/db/testing'
import {
  type CoreDecomposition,
  createProvider,
  decomposeSnapshot,
  type IpVersion,
  type ProviderOptions,
} from '@kcore/engine'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { syncFromProvider } from '../src/index.js'
import { type Fault, type FaultProviderServer, startFaultProvider } from '../src/testing.js'
import {
  clearKcoreTables,
  countRows,
  EXAMPLES_DIR,
  FIXTURE,
  openStore,
  rowsOfDate,
  shellPairs,
  storedShells,
  type TestStore,
} from './helpers.js'

// Real CAIDA files, served re-dated (the provider takes the date from the file name). Dates next
// to each other keep plausible sizes: a refresh refuses a file under 25% of its stored neighbours'
// AS count (81 ASes next to 3,233 would be, and so would 3,233 between two of 18,962).
const small = new Uint8Array(await readFile(FIXTURE)) // 81 ASes, one bz2 block
const y1998 = new Uint8Array(await readFile(`${EXAMPLES_DIR}19980101.as-rel.txt.bz2`))
const y2005 = new Uint8Array(await readFile(`${EXAMPLES_DIR}20050101.as-rel.txt.bz2`))
const v6File = new Uint8Array(await readFile(`${EXAMPLES_DIR}20220601.as-rel.v6-stable.txt.bz2`))

/** CAIDA's name of a snapshot file for a `YYYY-MM-DD` date. */
const nameOf = (ipVersion: IpVersion, date: string) =>
  `${date.replaceAll('-', '')}.as-rel${ipVersion === 'ipv6' ? '.v6-stable' : ''}.txt.bz2`

/** A file the server offers: its date, its good bytes, and the fault it starts with. */
type Offer = { ipVersion: IpVersion; date: string; bytes: Uint8Array; fault?: Fault }

/** Expected decomposition of some bytes, computed straight from the engine (no provider, no store). */
const expected = new Map<Uint8Array, Promise<{ decomposition: CoreDecomposition; links: number }>>()
function decomposed(bytes: Uint8Array) {
  let entry = expected.get(bytes)
  if (!entry) {
    entry = decomposeSnapshot(bytes).then(({ graph, decomposition }) => ({
      decomposition,
      links: graph.linkCount,
    }))
    expected.set(bytes, entry)
  }
  return entry
}

/** How long to wait for the server to see what the client did (a generous bound, not a claim). */
const WAIT = { timeout: 30_000, interval: 20 }

/** Fast retries; the timeout is long enough that only an injected stall reaches it. */
const fast: Omit<ProviderOptions, 'baseUrl'> = { retries: 1, retryDelayMs: 5, timeoutMs: 10_000 }

describe.each(testDatabases())('refresh against a faulty HTTP provider on $name', ({ open }) => {
  let store: TestStore
  let server: FaultProviderServer

  beforeAll(async () => {
    store = await openStore(open)
  })
  afterAll(async () => {
    await store?.database.close()
  })
  beforeEach(async () => {
    await clearKcoreTables(store.database)
    server = await startFaultProvider()
  })
  afterEach(async () => {
    await server?.close()
  })

  function serve(offers: Offer[]): void {
    for (const { ipVersion, date, bytes, fault } of offers) {
      const name = nameOf(ipVersion, date)
      server.offer(name, bytes)
      if (fault) server.faults.set(name, fault)
    }
  }

  const path = (ipVersion: IpVersion, date: string) =>
    `/datasets/as-relationships/serial-1/${nameOf(ipVersion, date)}`

  /**
   * The store holds exactly `offers` of this version (nothing of any other date), each with
   * the shell indexes the engine computes from the same bytes, and the known-ASN table holds
   * exactly the ASNs of those snapshots: a failed download left no row anywhere.
   */
  async function expectStoredExactly(ipVersion: IpVersion, offers: Offer[]): Promise<void> {
    const dates = offers.map((o) => o.date).sort()
    expect(await store.storedDates(ipVersion)).toEqual(dates)
    const snapshots = await store.snapshots(ipVersion)
    const asns = new Set<number>()
    for (const offer of offers) {
      const { decomposition, links } = await decomposed(offer.bytes)
      expect(await storedShells(store.database, ipVersion, offer.date)).toEqual(
        shellPairs(decomposition),
      )
      expect(snapshots.find((s) => s.date === offer.date)).toMatchObject({
        max_shell_index: decomposition.maxShell,
        unique_asns: decomposition.asns.length,
        link_count: links,
        source: nameOf(ipVersion, offer.date),
      })
      for (const asn of decomposition.asns) asns.add(asn)
    }
    expect(await countRows(store.database, `kcore_asn_${ipVersion}`)).toBe(asns.size)
  }

  async function expectNothingStored(ipVersion: IpVersion, dates: string[]): Promise<void> {
    for (const date of dates) {
      expect(await rowsOfDate(store.database, ipVersion, date)).toEqual({ snapshots: 0, shells: 0 })
    }
  }

  it('reports every faulty file, stores every good one whole, and takes the failed ones next time', async () => {
    const good: Offer[] = [
      { ipVersion: 'ipv4', date: '2015-01-01', bytes: small },
      { ipVersion: 'ipv4', date: '2015-04-01', bytes: y1998 },
      { ipVersion: 'ipv4', date: '2015-09-01', bytes: y2005 },
    ]
    const faulty: Offer[] = [
      { ipVersion: 'ipv4', date: '2015-02-01', bytes: y1998, fault: 'http-500' },
      { ipVersion: 'ipv4', date: '2015-03-01', bytes: y1998, fault: 'reset' },
      { ipVersion: 'ipv4', date: '2015-05-01', bytes: y1998, fault: 'truncated' },
      { ipVersion: 'ipv4', date: '2015-06-01', bytes: y1998, fault: 'corrupt' },
      { ipVersion: 'ipv4', date: '2015-07-01', bytes: y1998, fault: 'malformed' },
      { ipVersion: 'ipv4', date: '2015-08-01', bytes: y1998, fault: 'missing' },
    ]
    const goodV6: Offer[] = [{ ipVersion: 'ipv6', date: '2015-01-01', bytes: v6File }]
    const faultyV6: Offer[] = [
      { ipVersion: 'ipv6', date: '2015-02-01', bytes: v6File, fault: 'corrupt' },
    ]
    serve([...good, ...faulty, ...goodV6, ...faultyV6])
    const provider = createProvider({ baseUrl: server.url, ...fast })

    const first = await syncFromProvider({ store, provider, ipVersions: ['ipv4', 'ipv6'] })
    expect(first.ipv4).toMatchObject({
      checked: false,
      added: ['2015-01-01', '2015-04-01', '2015-09-01'],
      latestDate: '2015-09-01',
    })
    const failures = Object.fromEntries(first.ipv4!.failures.map((f) => [f.date, f.error]))
    expect(Object.keys(failures)).toEqual(faulty.map((f) => f.date))
    const url = (date: string) => `${server.url}serial-1/${nameOf('ipv4', date)}`
    expect(failures['2015-02-01']).toBe(
      `provider answered HTTP 500 for ${url('2015-02-01')} (after 2 attempts)`,
    )
    expect(failures['2015-03-01']).toMatch(
      /^provider unreachable: .*20150301\.as-rel\.txt\.bz2: body broke off after \d+ bytes.*\(after 2 attempts\)$/,
    )
    expect(failures['2015-05-01']).toMatch(/^corrupt or truncated bzip2 data \(at line \d+\)/)
    expect(failures['2015-06-01']).toMatch(/^corrupt or truncated bzip2 data \(at line \d+\)/)
    expect(failures['2015-07-01']).toMatch(/^line 165: .*"39\|1803\|zero"/)
    expect(failures['2015-08-01']).toBe(`provider answered HTTP 404 for ${url('2015-08-01')}`)
    for (const { date } of faulty) expect(first.ipv4!.error).toContain(date)
    expect(first.ipv4!.error).toMatch(/^6 of 9 ipv4 snapshots failed/)

    expect(first.ipv6).toMatchObject({ checked: false, added: ['2015-01-01'] })
    expect(first.ipv6!.failures).toEqual([
      { date: '2015-02-01', error: expect.stringMatching(/corrupt or truncated bzip2/) },
    ])

    // 5xx and a dropped body are retried once, a 404 never
    const count = (p: string) => server.requests.filter((r) => r === p).length
    expect(count(path('ipv4', '2015-02-01'))).toBe(2)
    expect(count(path('ipv4', '2015-03-01'))).toBe(2)
    expect(count(path('ipv4', '2015-08-01'))).toBe(1)

    await expectStoredExactly('ipv4', good)
    await expectStoredExactly('ipv6', goodV6)
    await expectNothingStored(
      'ipv4',
      faulty.map((f) => f.date),
    )
    await expectNothingStored('ipv6', ['2015-02-01'])

    server.clearFaults()
    server.requests.length = 0
    const second = await syncFromProvider({ store, provider, ipVersions: ['ipv4', 'ipv6'] })
    expect(second).toEqual({
      ipv4: {
        checked: true,
        added: faulty.map((f) => f.date),
        latestDate: '2015-09-01',
        error: null,
        failures: [],
      },
      ipv6: {
        checked: true,
        added: ['2015-02-01'],
        latestDate: '2015-02-01',
        error: null,
        failures: [],
      },
    })
    // only what had failed was downloaded again
    expect(server.requests.filter((r) => r.endsWith('.bz2')).sort()).toEqual(
      [...faulty, ...faultyV6].map((f) => path(f.ipVersion, f.date)).sort(),
    )
    await expectStoredExactly('ipv4', [...good, ...faulty])
    await expectStoredExactly('ipv6', [...goodV6, ...faultyV6])

    const third = await syncFromProvider({ store, provider, ipVersions: ['ipv4', 'ipv6'] })
    expect(third.ipv4).toMatchObject({ checked: true, added: [], failures: [] })
    expect(third.ipv6).toMatchObject({ checked: true, added: [], failures: [] })
  })

  it('gives up a stalled download after the timeout and still stores the files after it', async () => {
    const good: Offer[] = [
      { ipVersion: 'ipv4', date: '2016-01-01', bytes: small },
      { ipVersion: 'ipv4', date: '2016-03-01', bytes: y1998 },
    ]
    serve([...good, { ipVersion: 'ipv4', date: '2016-02-01', bytes: y1998, fault: 'stall' }])
    const provider = createProvider({
      baseUrl: server.url,
      timeoutMs: 2_000,
      retries: 1,
      retryDelayMs: 5,
    })

    const result = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
    expect(result.ipv4).toMatchObject({
      checked: false,
      added: ['2016-01-01', '2016-03-01'],
      latestDate: '2016-03-01',
    })
    expect(result.ipv4!.failures).toEqual([
      {
        date: '2016-02-01',
        error: expect.stringMatching(
          /^provider unreachable: .*20160201\.as-rel\.txt\.bz2: no data for 2000 ms \(timed out\) \(after 2 attempts\)$/,
        ),
      },
    ])
    // the client, not the server, ended both stalled attempts
    const stalled = path('ipv4', '2016-02-01')
    await vi.waitFor(() => expect(server.abandoned).toEqual([stalled, stalled]), WAIT)
    await expectStoredExactly('ipv4', good)
    await expectNothingStored('ipv4', ['2016-02-01'])

    server.clearFaults()
    const next = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
    expect(next.ipv4).toMatchObject({ checked: true, added: ['2016-02-01'], failures: [] })
  })

  it('stops at once on abort while a download stalls, storing nothing of it', async () => {
    serve([
      { ipVersion: 'ipv4', date: '2016-01-01', bytes: small },
      { ipVersion: 'ipv4', date: '2016-02-01', bytes: y1998, fault: 'stall' },
      { ipVersion: 'ipv4', date: '2016-03-01', bytes: y1998 },
    ])
    // a timeout far beyond the test's: only the abort can end the stalled download
    const provider = createProvider({ baseUrl: server.url, timeoutMs: 600_000, retries: 3 })
    const controller = new AbortController()
    const run = syncFromProvider({
      store,
      provider,
      ipVersions: ['ipv4'],
      signal: controller.signal,
    })
    const stalled = path('ipv4', '2016-02-01')
    await vi.waitFor(() => expect(server.requests).toContain(stalled), WAIT)
    controller.abort(new Error('stopped by test'))
    await expect(run).rejects.toThrow('stopped by test')
    await vi.waitFor(() => expect(server.abandoned).toEqual([stalled]), WAIT)
    expect(server.requests.filter((r) => r === stalled)).toHaveLength(1) // not retried
    expect(await store.storedDates('ipv4')).toEqual(['2016-01-01'])
    await expectNothingStored('ipv4', ['2016-02-01', '2016-03-01'])

    // the lock was released: the next run (provider fixed) finishes the job
    server.clearFaults()
    const next = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
    expect(next.ipv4?.added).toEqual(['2016-02-01', '2016-03-01'])
  })

  it('marks a version unchecked when its listing fails, syncs the other, and retries a brief failure', async () => {
    serve([
      { ipVersion: 'ipv4', date: '2017-01-01', bytes: small },
      { ipVersion: 'ipv6', date: '2017-01-01', bytes: small },
    ])
    const provider = createProvider({ baseUrl: server.url, ...fast })
    server.listingFailures = 2 // the first listing and its one retry: ipv4 is listed first
    const first = await syncFromProvider({ store, provider, ipVersions: ['ipv4', 'ipv6'] })
    expect(first.ipv4).toEqual({
      checked: false,
      added: [],
      latestDate: null,
      error: `listing ipv4 snapshots failed: provider answered HTTP 500 for ${server.url}serial-1/ (after 2 attempts)`,
      failures: [],
    })
    expect(first.ipv6).toMatchObject({ checked: true, added: ['2017-01-01'], error: null })
    expect(await store.storedDates('ipv4')).toEqual([])

    server.listingFailures = 1 // one 500, then the retry answers
    const second = await syncFromProvider({ store, provider, ipVersions: ['ipv4', 'ipv6'] })
    expect(second.ipv4).toMatchObject({ checked: true, added: ['2017-01-01'], error: null })
    expect(second.ipv6).toMatchObject({ checked: true, added: [] })
    await expectStoredExactly('ipv4', [{ ipVersion: 'ipv4', date: '2017-01-01', bytes: small }])
  })
})
