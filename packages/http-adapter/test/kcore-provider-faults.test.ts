import { readFile } from 'node:fs/promises'
import { testDatabases } from '@kcore/db/testing'
import { createProvider, type IpVersion, type ProviderOptions } from '@kcore/engine'
import {
  clearKcoreTables,
  expectedVersion,
  type FaultProviderServer,
  FIXTURE,
  type Offer,
  offerSnapshots,
  rowsOfDate,
  startFaultProvider,
  storedVersion,
} from '@kcore/store/testing'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createHandler } from '../src/index.js'
import { SAMPLE_DIR } from './explorer-server.js'
import { openStore, type TestStore } from './kcore-helpers.js'

// POST /api/refresh over a provider that fails on demand (@kcore/store/testing): the HTTP
// answer reports every failure with 200, keeps what it stored, and the next refresh takes the
// rest. The store-level faults are in packages/kcore-store/test/provider-faults.test.ts.
const small = new Uint8Array(await readFile(FIXTURE)) // 81 ASes, one bz2 block
const v6File = new Uint8Array(await readFile(`${SAMPLE_DIR}20220601.as-rel.v6-stable.txt.bz2`))

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

    const serve = (offers: Offer[]) => offerSnapshots(server, offers)

    /** The store holds exactly `offers` of this version, whole (see `storedVersion`). */
    async function expectStoredExactly(ipVersion: IpVersion, offers: Offer[]): Promise<void> {
      expect(await storedVersion(store, store.database, ipVersion)).toEqual(
        await expectedVersion(offers),
      )
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
