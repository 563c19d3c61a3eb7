import type { Database } from '@kcore/db'
import { secondConnection, testDatabases } from '@kcore/db/testing'
import { createKcoreStore, ingestFile, type KcoreStore, type ShellPage } from '@kcore/store'
import { migrateKcore } from '@kcore/store/testing'
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
      return {
        ...reader,
        shellList: async (...args) => {
          const list = await reader.shellList(...args)
          return { ...list, pages: countedPages(list.pages) }
        },
      }
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

/** A few turns of the event loop: room for a server that would run ahead to do so. */
async function yieldTurns() {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
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

      const lines = (chunk: Uint8Array) => chunk.reduce((n, byte) => (byte === 10 ? n + 1 : n), 0)
      // Rows read by the client (the header line is not one).
      let received = lines(first.value!) - 1
      for (;;) {
        // A slow client: the server gets turns of the event loop to run ahead, if it would.
        await yieldTurns()
        const { done, value } = await reader.read()
        if (done) break
        received += lines(value)
        // Rows handed out by the store but not yet read by the client: at most one page.
        expect(handedOut.rows - received).toBeLessThanOrEqual(PAGE_ROWS)
      }
      expect(received).toBe(asnCount)
      expect(handedOut.pages).toBe(pages)
    }, 60_000)
  },
)

// A download finishes from the one state it started on, whatever is written meanwhile: another
// connection (on PostgreSQL another pool, as another process) re-ingests the date after the
// client has read the first page, and the rest of the body is still the first version's.
const DATE = '2021-01-01'
/** Version A: ASNs 1..25,000 in shell 1; version B: 30,001..55,000 in shell 2 (three pages). */
const A = Array.from({ length: 25_000 }, (_, i): [number, number] => [i + 1, 1])
const B = Array.from({ length: 25_000 }, (_, i): [number, number] => [i + 30_001, 2])

describe.each(testDatabases())(
  'a shell list streamed while its date is re-ingested on $name',
  ({ open }) => {
    let database: Database
    let other: Database
    let handler: Handler
    let writer: KcoreStore

    beforeAll(async () => {
      database = await open(migrateKcore)
      const store = createKcoreStore(database)
      await store.migrate()
      other = await secondConnection(database)
      writer = createKcoreStore(other)
      handler = kcoreHandler(store)
    })
    afterAll(async () => {
      await handler?.close()
      await other?.close()
      await database?.close()
    })

    const ingest = (pairs: [number, number][]) => {
      const asns = Uint32Array.from(pairs, ([asn]) => asn)
      const shells = Uint32Array.from(pairs, ([, shell]) => shell)
      return writer.ingest({
        ipVersion: 'ipv4',
        date: DATE,
        decomposition: { asns, shells, maxShell: Math.max(...shells) },
        linkCount: pairs.length,
      })
    }

    /** The whole body of `path`, with `between` awaited once the text read so far has a row. */
    async function body(
      path: string,
      hasRow: (text: string) => boolean,
      between: () => Promise<void>,
    ) {
      const res = await handler(new Request(`http://localhost${path}`))
      expect(res.status).toBe(200)
      const reader = res.body!.getReader()
      const decoder = new TextDecoder()
      let text = ''
      let written = false
      for (;;) {
        const next = await reader.read()
        if (next.done) break
        text += decoder.decode(next.value, { stream: true })
        if (!written && hasRow(text)) {
          written = true
          await between()
        }
      }
      expect(written, 'the write ran while the body was read').toBe(true)
      return text
    }

    it('finishes a CSV download with every row of the version it started on', async () => {
      await ingest(A)
      const csvRow = (text: string) => text.split('\n').length > 2
      const text = await body(`/api/snapshots/${DATE}/shells?format=csv`, csvRow, () => ingest(B))
      const lines = text.trimEnd().split('\n')
      expect(lines[0]).toBe('asn,shell_index,normalized_shell_index')
      expect(lines.slice(1)).toEqual(A.map(([asn, shell]) => `${asn},${shell},1`))
      // And the next request sees the replacement.
      const next = await handler(new Request(`http://localhost/api/snapshots/${DATE}/distribution`))
      expect((await next.json()).shells).toEqual([{ shell_index: 2, count: B.length }])
      await ingest(A)
    })

    it('finishes a JSON download whose count and rows are of one version', async () => {
      await ingest(A)
      const jsonRow = (text: string) => text.includes('"asn"')
      const text = await body(`/api/snapshots/${DATE}/shells`, jsonRow, async () => {
        await ingest(B)
        // A distribution asked meanwhile answers whole, of the version now stored.
        const res = await handler(
          new Request(`http://localhost/api/snapshots/${DATE}/distribution`),
        )
        expect(res.status).toBe(200)
        expect((await res.json()).shells).toEqual([{ shell_index: 2, count: B.length }])
      })
      const answer = JSON.parse(text)
      expect(answer.count).toBe(A.length)
      expect(
        answer.shells.map((r: { asn: number; shell_index: number }) => [r.asn, r.shell_index]),
      ).toEqual(A)
    })
  },
)
