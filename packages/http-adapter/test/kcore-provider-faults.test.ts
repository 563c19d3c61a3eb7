import { readFile } from 'node:fs/promises'
import { testDatabases } from '@kcore/db/testing'
import {
  type CoreDecomposition,
  createProvider,
  decomposeSnapshot,
  type IpVersion,
  type ProviderOptions,
} from '@kcore/engine'
import {
  clearKcoreTables,
  countRows,
  type Fault,
  type FaultProviderServer,
  FIXTURE,
  rowsOfDate,
  shellPairs,
  startFaultProvider,
  storedShells,
} from '@kcore/store/testing'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createHandler } from '../src/index.js'
import { SAMPLE_DIR as EXAMPLES_DIR } from './explorer-server.js'
import { openStore, type TestStore } from './kcore-helpers.js'

// Real CAIDA files, served re-dated (the provider takes the date from the file name). Dates next
// to each other keep plausible sizes: a refresh refuses a file under 25% of its stored neighbours'
// AS count (81 ASes next to 3,233 would be, and so would 3,233 between two of 18,962).
const small = new Uint8Array(await readFile(FIXTURE)) // 81 ASes, one bz2 block
const _y1998 = new Uint8Array(await readFile(`${EXAMPLES_DIR}19980101.as-rel.txt.bz2`))
const _y2005 = new Uint8Array(await readFile(`${EXAMPLES_DIR}20050101.as-rel.txt.bz2`))
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
const _WAIT = { timeout: 30_000, interval: 20 }

/** Fast retries; the timeout is long enough that only an injected stall reaches it. */
const fast: Omit<ProviderOptions, 'baseUrl'> = { retries: 1, retryDelayMs: 5, timeoutMs: 10_000 }

describe.each(testDatabases())(
  'POST /api/refresh against a faulty HTTP provider on $name',
  ({ open }) => {
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

    const _path = (ipVersion: IpVersion, date: string) =>
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
        expect(await rowsOfDate(store.database, ipVersion, date)).toEqual({
          snapshots: 0,
          shells: 0,
        })
      }
    }

    it('answers POST /api/refresh with 200 and the failures in the body, then takes what failed', async () => {
      const good: Offer[] = [
        { ipVersion: 'ipv6', date: '2018-01-01', bytes: small },
        { ipVersion: 'ipv6', date: '2018-04-01', bytes: v6File },
      ]
      const faulty: Offer[] = [
        { ipVersion: 'ipv6', date: '2018-02-01', bytes: small, fault: 'truncated' },
        { ipVersion: 'ipv6', date: '2018-03-01', bytes: small, fault: 'missing' },
        { ipVersion: 'ipv6', date: '2018-05-01', bytes: v6File, fault: 'malformed' },
      ]
      const v4: Offer[] = [{ ipVersion: 'ipv4', date: '2018-01-01', bytes: small }]
      serve([...good, ...faulty, ...v4])
      server.listingFailures = 2 // ipv4's listing fails for the whole first refresh
      const errors: unknown[] = []
      const handler = createHandler({
        kcore: {
          store,
          provider: createProvider({ baseUrl: server.url, ...fast }),
          version: '0.0.0-test',
          scheduler: { enabled: false, schedule: '0 6 * * *' },
        },
        onError: (error) => errors.push(error),
      })
      const refresh = async () => {
        const response = await handler(
          new Request('http://localhost/api/refresh', { method: 'POST' }),
        )
        return { status: response.status, body: await response.json() }
      }

      try {
        const first = await refresh()
        expect(first.status).toBe(200)
        expect(Object.keys(first.body)).toEqual(['ipv4', 'ipv6'])
        expect(first.body.ipv4).toEqual({
          processed: false,
          success: false,
          snapshots_added: 0,
          processed_dates: [],
          latest_date: null,
          error: expect.stringMatching(/^listing ipv4 snapshots failed: .*HTTP 500/),
        })
        expect(first.body.ipv6).toEqual({
          processed: false,
          success: false,
          snapshots_added: 2,
          processed_dates: ['2018-01-01', '2018-04-01'],
          latest_date: '2018-04-01',
          error: expect.stringMatching(/^3 of 5 ipv6 snapshots failed/),
        })
        for (const { date } of faulty) expect(first.body.ipv6.error).toContain(date)
        expect(first.body.ipv6.error).toMatch(/2018-02-01: corrupt or truncated bzip2/)
        expect(first.body.ipv6.error).toMatch(/2018-03-01: provider answered HTTP 404/)
        expect(first.body.ipv6.error).toMatch(/2018-05-01: line 165/)
        await expectStoredExactly('ipv6', good)
        await expectNothingStored(
          'ipv6',
          faulty.map((f) => f.date),
        )

        server.clearFaults()
        const second = await refresh()
        expect(second.status).toBe(200)
        expect(second.body).toEqual({
          ipv4: {
            processed: true,
            success: true,
            snapshots_added: 1,
            processed_dates: ['2018-01-01'],
            latest_date: '2018-01-01',
          },
          ipv6: {
            processed: true,
            success: true,
            snapshots_added: 3,
            processed_dates: faulty.map((f) => f.date),
            latest_date: '2018-05-01',
          },
        })
        await expectStoredExactly('ipv6', [...good, ...faulty])
        await expectStoredExactly('ipv4', v4)
        expect(errors).toEqual([])
      } finally {
        await handler.close()
      }
    })
  },
)
