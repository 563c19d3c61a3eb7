import { testDatabases } from '@kcore/db/testing'
import { ingestFile, type KcoreStore, type ShellPage } from '@kcore/store'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Handler } from '../src/index.js'
import { caidaFile, kcoreHandler, openStore, type TestStore } from './kcore-helpers.js'

const PAGE_ROWS = 10_000

/** A store that records, for each shell page it hands out, how many rows were handed out so far. */
function pageCountingStore(store: KcoreStore) {
  const handedOut = { rows: 0, pages: 0 }
  const counted: KcoreStore = {
    ...store,
    reader: async () => {
      const reader = await store.reader()
      return { ...reader, shellPages: (...args) => countedPages(reader.shellPages(...args)) }
    },
  }
  function countedPages(inner: AsyncGenerator<ShellPage>): AsyncGenerator<ShellPage> {
    return (async function* () {
      for await (const page of inner as AsyncGenerator<ShellPage>) {
        handedOut.pages++
        handedOut.rows += page.asns.length
        yield page
      }
    })()
  }
  return { counted, handedOut }
}

const megabytes = (bytes: number) => bytes / 2 ** 20
const heldBytes = () => {
  const { heapUsed, arrayBuffers } = process.memoryUsage()
  return heapUsed + arrayBuffers
}

describe.each(testDatabases())(
  'a whole snapshot streamed to a slow client on $name',
  ({ open }) => {
    let store: TestStore
    let handler: Handler
    let handedOut: { rows: number; pages: number }
    let asnCount: number

    beforeAll(async () => {
      store = await openStore(open)
      asnCount = (await ingestFile(store, caidaFile('20240801'))).asns
      const counting = pageCountingStore(store)
      handedOut = counting.handedOut
      handler = kcoreHandler(counting.counted)
    }, 180_000)
    afterAll(async () => {
      await handler?.close()
      await store?.database.close()
    })

    it('sends the first bytes before the last page is asked for, and runs at most a page ahead of the client', async () => {
      expect(asnCount).toBeGreaterThan(75_000)
      const pages = Math.ceil(asnCount / PAGE_ROWS)
      const res = await handler(
        new Request('http://localhost/api/snapshots/2024-08-01/shells?format=csv'),
      )
      expect(res.headers.get('content-length')).toBeNull()
      const reader = res.body!.getReader()
      const first = await reader.read()
      expect(first.done).toBe(false)
      // A buffered body would have asked for all 8 pages before the first byte left.
      expect(handedOut.pages).toBeLessThan(pages)

      const baseline = heldBytes()
      let peak = 0
      const lines = (chunk: Uint8Array) => chunk.reduce((n, byte) => (byte === 10 ? n + 1 : n), 0)
      // Rows read by the client (the header line is not one).
      let received = lines(first.value!) - 1
      let bytes = first.value!.byteLength
      for (;;) {
        // A slow client: each read waits a little, so the server could run ahead if it would.
        await new Promise((resolve) => setTimeout(resolve, 20))
        const { done, value } = await reader.read()
        if (done) break
        bytes += value.byteLength
        received += lines(value)
        // Rows handed out by the store but not yet read by the client: at most one page.
        expect(handedOut.rows - received).toBeLessThanOrEqual(PAGE_ROWS)
        peak = Math.max(peak, heldBytes() - baseline)
      }
      expect(received).toBe(asnCount)
      expect(handedOut.pages).toBe(pages)
      // The body is ~2 MiB of CSV; the server holds a page of it at a time. The bound is loose
      // (the collector runs when it likes) but far under what holding every page object costs.
      console.log(
        `${asnCount} ASes, ${megabytes(bytes).toFixed(1)} MiB of CSV, peak growth while read slowly ${megabytes(peak).toFixed(1)} MiB`,
      )
      expect(megabytes(peak)).toBeLessThan(32)
    }, 60_000)
  },
)
