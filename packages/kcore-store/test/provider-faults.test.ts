import { readFile } from 'node:fs/promises'
import { testDatabases } from '@kcore/db/testing'
import { createProvider, type IpVersion, type ProviderOptions } from '@kcore/engine'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { syncFromProvider } from '../src/index.js'
import {
  expectedVersion,
  type FaultProviderServer,
  type Offer,
  offerSnapshots,
  snapshotFileName,
  startFaultProvider,
  storedVersion,
} from '../src/testing.js'
import {
  clearKcoreTables,
  EXAMPLES_DIR,
  FIXTURE,
  openStore,
  rowsOfDate,
  type TestStore,
} from './helpers.js'

// Real CAIDA files, served re-dated (the provider takes the date from the file name). Dates next
// to each other keep plausible sizes: a refresh refuses a file under 25% of its stored neighbours'
// AS count (81 ASes next to 3,233 would be, and so would 3,233 between two of 18,962).
const small = new Uint8Array(await readFile(FIXTURE)) // 81 ASes, one bz2 block
const y1998 = new Uint8Array(await readFile(`${EXAMPLES_DIR}19980101.as-rel.txt.bz2`))
const y2005 = new Uint8Array(await readFile(`${EXAMPLES_DIR}20050101.as-rel.txt.bz2`))
const v6File = new Uint8Array(await readFile(`${EXAMPLES_DIR}20220601.as-rel.v6-stable.txt.bz2`))

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

  const serve = (offers: Offer[]) => offerSnapshots(server, offers)

  const path = (ipVersion: IpVersion, date: string) =>
    `/datasets/as-relationships/serial-1/${snapshotFileName(ipVersion, date)}`

  /**
   * The store holds exactly `offers` of this version (nothing of any other date), each with
   * the shell indexes the engine computes from the same bytes, and the known-ASN table holds
   * exactly the ASNs of those snapshots: a failed download left no row anywhere.
   */
  async function expectStoredExactly(ipVersion: IpVersion, offers: Offer[]): Promise<void> {
    expect(await storedVersion(store, store.database, ipVersion)).toEqual(
      await expectedVersion(offers),
    )
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
    const url = (date: string) => `${server.url}serial-1/${snapshotFileName('ipv4', date)}`
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
    // the files are fetched ahead of storing: the first one is stored while the second stalls
    await vi.waitFor(
      async () => expect(await (await store.reader()).storedDates('ipv4')).toEqual(['2016-01-01']),
      WAIT,
    )
    controller.abort(new Error('stopped by test'))
    await expect(run).rejects.toThrow('stopped by test')
    await vi.waitFor(() => expect(server.abandoned).toEqual([stalled]), WAIT)
    expect(server.requests.filter((r) => r === stalled)).toHaveLength(1) // not retried
    expect(await (await store.reader()).storedDates('ipv4')).toEqual(['2016-01-01'])
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
    expect(await (await store.reader()).storedDates('ipv4')).toEqual([])

    server.listingFailures = 1 // one 500, then the retry answers
    const second = await syncFromProvider({ store, provider, ipVersions: ['ipv4', 'ipv6'] })
    expect(second.ipv4).toMatchObject({ checked: true, added: ['2017-01-01'], error: null })
    expect(second.ipv6).toMatchObject({ checked: true, added: [] })
    await expectStoredExactly('ipv4', [{ ipVersion: 'ipv4', date: '2017-01-01', bytes: small }])
  })
})
