import { propertyRuns, testDatabases } from '@kcore/db/testing'
import fc from 'fast-check'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createKcoreStore } from '../src/index.js'
import { queryTrends, trendSearch } from '../src/query-trends.js'
import { fenceOf } from '../src/shell-blobs.js'
import { migrateKcore } from '../src/testing.js'
import { createTrendReadModel } from '../src/trend-read-model.js'
import { clearKcoreTables, decomposition } from './helpers.js'

import {
  asn,
  DATES,
  edgeAsns,
  entries,
  expectedEntries,
  expectedPoints,
  ingestAll,
  ingestPairs,
  K,
  type Pairs,
  snapshot,
  storedFences,
} from './trend-search-cases.js'

// The database's search of the stored blobs (what answers while the read model loads, and
// every read without it) through each snapshot's fence: exact at every block edge, for
// snapshots of every size around the fence's stride and every stored shell width, on random
// and on real snapshots; and its cost per snapshot a constant, whatever the snapshot's size.

describe('the fence of a snapshot', () => {
  it('is every FENCE_STRIDE-th ASN from the first, and bounds each block', () => {
    fc.assert(
      fc.property(snapshot, (pairs) => {
        const asns = Uint32Array.from(pairs, ([a]) => a)
        const fence = fenceOf(asns)
        expect(fence.length).toBe(Math.ceil(asns.length / K))
        for (let i = 0; i < asns.length; i++) {
          // Position i lies in block b iff fence[b] <= asns[i] < fence[b + 1].
          const b = Math.floor(i / K)
          expect(fence[b]).toBeLessThanOrEqual(asns[i]!)
          if (b + 1 < fence.length) expect(asns[i]!).toBeLessThan(fence[b + 1]!)
        }
      }),
      { numRuns: propertyRuns(200, 50) },
    )
  })
})

describe.each(testDatabases())('the trend search of the stored blobs on $name', ({ open }) => {
  it('finds every AS at and around every block edge exactly, at any size, shell width and range', async () => {
    const database = await open(migrateKcore)
    const store = createKcoreStore(database)
    await store.migrate()
    const model = createTrendReadModel(database.db as never)
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(snapshot, { minLength: 1, maxLength: DATES.length }),
          fc.array(asn, { maxLength: 5 }),
          fc.option(fc.tuple(fc.nat(), snapshot), { nil: undefined }),
          fc.option(fc.tuple(fc.constantFrom(...DATES), fc.constantFrom(...DATES)), {
            nil: undefined,
          }),
          async (list, extra, replace, bounds) => {
            await clearKcoreTables(database)
            const stored = await ingestAll(database, list)
            // Maybe one date re-ingested with other content.
            if (replace) {
              const target = stored[replace[0] % stored.length]!
              target.pairs = replace[1]
              await ingestPairs(store, target.date, target.pairs)
            }
            expect(await storedFences(database)).toEqual(
              stored.map(({ date, pairs }) => ({
                date,
                fence: Array.from(fenceOf(Uint32Array.from(pairs, ([a]) => a))),
              })),
            )
            // Dates compare as strings (the lint's Math.min/max would make them NaN).
            const [low, high] = [...(bounds ?? [])].sort()
            const range = bounds && { start: low!, end: high! }
            const asns = [...edgeAsns(stored), ...extra, ...extra]
            const view = await queryTrends(database.db as never, 'ipv4', asns, range)
            expect(view.dateRange).toEqual({ earliest: DATES[0], latest: stored.at(-1)!.date })
            expect(entries(view)).toEqual(expectedEntries(stored, asns, range))
            // The read model, transposed from the whole blobs, agrees.
            await model.catchUp()
            expect(model.view((await store.reader()).revision, 'ipv4', asns, range)).toEqual(view)
          },
        ),
        { numRuns: propertyRuns(40) },
      )
    } finally {
      await database.close()
    }
  }, 300_000)

  it('finds an AS whose bytes first occur off a 4-byte boundary, across two neighbours', async () => {
    const database = await open(migrateKcore)
    const store = createKcoreStore(database, { trendReadModel: false })
    await store.migrate()
    try {
      // The blob is 34 12 00 00 | ff ff 01 00 | 00 00 ff ff: its bytes 2..5 (00 00 ff ff)
      // spell 0xffff0000 before the boundary it is stored on; the ones at every other offset
      // spell ASNs that are not stored (0xff000012, 0x01ffff00, 0x1ff, 1, 0xff000000).
      const pairs: Pairs = [
        [0x1234, 4],
        [0x1ffff, 5],
        [0xffff0000, 6],
      ]
      await store.ingest({
        ipVersion: 'ipv4',
        date: '2024-08-01',
        decomposition: decomposition(pairs),
        linkCount: 2,
      })
      const asns = [0xffff0000, 0xff000012, 0x1ffff00, 0x1ff, 1, 0xff000000, 0x1234, 0x1ffff]
      const view = await queryTrends(database.db as never, 'ipv4', asns)
      const stored = [{ date: '2024-08-01', pairs }]
      expect(entries(view)).toEqual(
        asns.map((a) => [a, expectedPoints(stored, a), expectedPoints(stored, a).length > 0]),
      )
      expect(view.trends.get(0xffff0000)?.map((p) => p.shell_index)).toEqual([6])
    } finally {
      await database.close()
    }
  })

  it('touches a constant number of pages per snapshot, not a search of its whole blob', async () => {
    const database = await open(migrateKcore)
    const store = createKcoreStore(database, { trendReadModel: false })
    await store.migrate()
    try {
      // 12 snapshots of 20,000 ASNs (80 KB blobs, ~40 out-of-line chunks each).
      const n = 20_000
      for (let s = 0; s < 12; s++)
        await store.ingest({
          ipVersion: 'ipv4',
          date: `${2001 + s}-01-01`,
          decomposition: decomposition(
            Array.from({ length: n }, (_, i): [number, number] => [i * 3 + (s % 3), i % 7]),
          ),
          linkCount: n,
        })
      await sql`analyze`.execute(database.db)
      for (const target of [0, 2 * 3 * K, 30_001, 59_999, 4_000_000]) {
        const { rows } = await sql<{
          'QUERY PLAN': unknown
        }>`explain (analyze, buffers, format json)
          ${trendSearch('ipv4', [target])}`.execute(database.db)
        const raw = rows[0]!['QUERY PLAN']
        const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as {
          Plan: Record<string, number>
        }[]
        const pages = plan[0]!.Plan['Shared Hit Blocks']! + plan[0]!.Plan['Shared Read Blocks']!
        // Per snapshot: its rows (shared by the index scans), the fence in the row, and one
        // slice of each blob (the TOAST index's two levels and the one or two chunks holding
        // it). A binary search of the whole blob takes ~16 probes of 3 pages or more each.
        expect(pages / 12, `ASN ${target}: ${pages} pages for 12 snapshots`).toBeLessThanOrEqual(16)
      }
    } finally {
      await database.close()
    }
  })
})
