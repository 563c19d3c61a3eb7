import type { Database } from '@kcore/db'
import { secondConnection, testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKcoreStore, type KcoreStore, type ShellPage } from '../src/index.js'
import { migrateKcore } from '../src/testing.js'
import { decomposition } from './helpers.js'

// A shell list finishes from the one content it started on, whatever another connection (on
// PostgreSQL another pool, as another process) commits between its pages: never cut off, never
// a mix of two contents. The re-ingest commits at a point the test picks (after the first page),
// not after a guessed wait.

const DATE = '2021-01-01'
/** Version A: ASNs 1..25,000 in shell 1; version B: 30,001..55,000 in shell 2. */
const A = Array.from({ length: 25_000 }, (_, i): [number, number] => [i + 1, 1])
const B = Array.from({ length: 25_000 }, (_, i): [number, number] => [i + 30_001, 2])

describe.each(testDatabases())(
  'a shell list while its snapshot is replaced on $name',
  ({ open }) => {
    let database: Database
    let other: Database
    let store: KcoreStore
    let writer: KcoreStore

    beforeAll(async () => {
      database = await open(migrateKcore)
      store = createKcoreStore(database)
      await store.migrate()
      other = await secondConnection(database)
      writer = createKcoreStore(other)
    })
    afterAll(async () => {
      await other?.close()
      await database?.close()
    })

    const ingest = (pairs: [number, number][]) =>
      writer.ingest({
        ipVersion: 'ipv4',
        date: DATE,
        decomposition: decomposition(pairs),
        linkCount: pairs.length,
      })

    /** The pairs of `pages`, with `between` run (awaited) once the first page is out. */
    async function readAll(pages: AsyncGenerator<ShellPage>, between: () => Promise<void>) {
      const pairs: [number, number][] = []
      let first = true
      for await (const page of pages) {
        for (let i = 0; i < page.asns.length; i++) pairs.push([page.asns[i]!, page.shells[i]!])
        if (first) await between()
        first = false
      }
      return pairs
    }

    it('pages to the end from the content of its first page', async () => {
      await ingest(A)
      const reader = await store.reader()
      const pairs = await readAll(reader.shellPages('ipv4', DATE, { pageSize: 10_000 }), () =>
        ingest(B),
      )
      expect(pairs).toEqual(A)
      // The replacement is there for the next reader.
      const next = await store.reader()
      expect((await next.core('ipv4', DATE, { k: 0 })).asns).toEqual(B.map(([asn]) => asn))
    })

    it('gives the count and the pages of one list from the same content', async () => {
      await ingest(A)
      const list = await (await store.reader()).shellList('ipv4', DATE, { minShell: 1 })
      await ingest(B)
      expect(list.snapshot.unique_asns).toBe(A.length)
      expect(list.count).toBe(A.length)
      const pairs = await readAll(list.pages, () => ingest(A))
      expect(pairs).toEqual(A)
    })
  },
)
