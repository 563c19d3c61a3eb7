import { readFile } from 'node:fs/promises'
import { testDatabases } from '@kcore/db/testing'
import { createProvider } from '@kcore/engine'
import {
  clearKcoreTables,
  type FaultProviderServer,
  FIXTURE,
  rowsOfDate,
  startFaultProvider,
} from '@kcore/store/testing'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createHandler } from '../src/index.js'
import { SAMPLE_DIR as EXAMPLES_DIR } from './explorer-server.js'
import { openStore, type TestStore } from './kcore-helpers.js'

// Issue 12: POST /api/refresh answers in bounded time when the provider stalls: each stalled
// read fails after the provider's timeout, and the whole refresh after its deadline, keeping
// and naming what it stored; a later refresh with the provider fixed takes the rest.

/** How long to wait for the server to see what the client did (a generous bound, not a claim). */
const WAIT = { timeout: 30_000, interval: 20 }

const small = new Uint8Array(await readFile(FIXTURE)) // 81 ASes
const y1998 = new Uint8Array(await readFile(`${EXAMPLES_DIR}19980101.as-rel.txt.bz2`)) // 3,233

describe.each(testDatabases())(
  'POST /api/refresh against a stalling provider on $name',
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

    function handler(options: { timeoutMs: number; refreshDeadlineMs?: number }) {
      return createHandler({
        kcore: {
          store,
          provider: createProvider({
            baseUrl: server.url,
            retries: 1,
            retryDelayMs: 5,
            timeoutMs: options.timeoutMs,
          }),
          version: '0.0.0-test',
          refreshDeadlineMs: options.refreshDeadlineMs,
        },
      })
    }
    async function refresh(h: ReturnType<typeof handler>) {
      const response = await h(
        new Request('http://localhost/api/refresh', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ip_versions: ['ipv4'] }),
        }),
      )
      return { status: response.status, body: await response.json() }
    }

    it('a stalled listing fails after the provider timeout (each attempt), then works once fixed', async () => {
      server.offer('20050101.as-rel.txt.bz2', small)
      server.stallListings = true
      const h = handler({ timeoutMs: 300 })
      try {
        const first = await refresh(h)
        expect(first).toEqual({
          status: 200,
          body: {
            ipv4: {
              processed: false,
              success: false,
              snapshots_added: 0,
              processed_dates: [],
              latest_date: null,
              error: expect.stringMatching(
                /^listing ipv4 snapshots failed: .*no data for 300 ms \(timed out\) \(after 2 attempts\)$/,
              ),
            },
          },
        })
        // the server sees each abandoned response close a moment after the client gave up
        await vi.waitFor(() => expect(server.abandoned).toHaveLength(2), WAIT)
        server.clearFaults()
        expect((await refresh(h)).body.ipv4).toMatchObject({
          processed: true,
          processed_dates: ['2005-01-01'],
        })
      } finally {
        await h.close()
      }
    })

    it('the refresh deadline ends a stalled file, keeps the dates stored before it, and the next refresh takes the rest', async () => {
      server.offer('20050101.as-rel.txt.bz2', small)
      server.offer('20050201.as-rel.txt.bz2', y1998)
      server.offer('20050301.as-rel.txt.bz2', y1998)
      server.faults.set('20050201.as-rel.txt.bz2', 'stall')
      // the provider alone would wait far longer than the deadline
      const h = handler({ timeoutMs: 600_000, refreshDeadlineMs: 3_000 })
      try {
        const first = await refresh(h)
        expect(first).toEqual({
          status: 200,
          body: {
            ipv4: {
              processed: false,
              success: false,
              snapshots_added: 1,
              processed_dates: ['2005-01-01'],
              latest_date: '2005-01-01',
              error: 'refresh deadline of 3000 ms passed; stored before it: 2005-01-01',
            },
          },
        })
        await vi.waitFor(
          () =>
            expect(server.abandoned).toEqual([
              '/datasets/as-relationships/serial-1/20050201.as-rel.txt.bz2',
            ]),
          WAIT,
        )
        for (const date of ['2005-02-01', '2005-03-01'])
          expect(await rowsOfDate(store.database, 'ipv4', date)).toEqual({
            snapshots: 0,
            shells: 0,
          })

        server.clearFaults()
        expect((await refresh(h)).body.ipv4).toMatchObject({
          processed: true,
          processed_dates: ['2005-02-01', '2005-03-01'],
          latest_date: '2005-03-01',
        })
      } finally {
        await h.close()
      }
    })
  },
)
