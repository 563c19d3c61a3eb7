import { Buffer } from 'node:buffer'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Database } from '@kcore/db'
import { migrateToLatest } from '@kcore/db'
import { propertyRuns, testDatabases } from '@kcore/db/testing'
import { decomposeSnapshot } from '@kcore/engine'
import fc from 'fast-check'
import { Migrator, sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createKcoreStore, type KcoreStore, type TrendPoint, type TrendView } from '../src/index.js'
import {
  KCORE_MIGRATION_LOCK_TABLE,
  KCORE_MIGRATION_TABLE,
  kcoreMigrationProvider,
  kcoreMigrations as migrations,
} from '../src/migrations.js'
import { normalizedShell } from '../src/normalized-shell.js'
import { queryTrends, trendSearch } from '../src/query-trends.js'
import { blobParam, encodeShells, FENCE_STRIDE, fenceOf } from '../src/shell-blobs.js'
import { createTrendReadModel } from '../src/trend-read-model.js'
import {
  CAIDA_DIR,
  clearKcoreTables,
  decomposition,
  fenceMismatches,
  secondConnection,
  storedShells,
} from './helpers.js'

// The database's search of the stored blobs (what answers while the read model loads, and
// every read without it) through each snapshot's fence: exact at every block edge, for
// snapshots of every size around the fence's stride and every stored shell width, on random
// and on real snapshots; and its cost per snapshot a constant, whatever the snapshot's size.

const MAX_ASN = 2 ** 32 - 1
const K = FENCE_STRIDE

/** One snapshot as ingested: `[asn, shell]` pairs, ascending by ASN. */
type Pairs = [number, number][]

/** The trend points of `asn` over `snapshots` (date order), as the decompositions give them. */
function expectedPoints(snapshots: { date: string; pairs: Pairs }[], asn: number): TrendPoint[] {
  const points: TrendPoint[] = []
  for (const { date, pairs } of snapshots) {
    const max = pairs.reduce((m, [, s]) => Math.max(m, s), 0)
    const hit = pairs.find(([a]) => a === asn)
    if (hit)
      points.push({
        date,
        shell_index: hit[1],
        max_shell_index: max,
        normalized_shell_index: normalizedShell(hit[1], max),
      })
  }
  return points
}

/**
 * The ASNs whose four bytes straddle the stored ASNs at `p` and `p + 1` (the blob's bytes at
 * offsets 1, 2 and 3 past `p`'s): a byte search finds them off the 4-byte boundaries.
 */
function straddling(asns: number[], p: number): number[] {
  const bytes = Buffer.alloc(8)
  bytes.writeUInt32LE(asns[p]!, 0)
  bytes.writeUInt32LE(asns[p + 1]!, 4)
  return [1, 2, 3].map((offset) => bytes.readUInt32LE(offset))
}

/**
 * ASNs at and around every block edge of each snapshot (the fence's entries, the ones before
 * them, the next value up and down), the first and last, the values just outside them, both
 * ends of the ASN range, and ones spelled by the bytes of two stored neighbours (at the edges
 * and every 17th position): where a fence search or a byte search goes wrong if it does.
 */
function edgeAsns(snapshots: { pairs: Pairs }[]): number[] {
  const out = new Set<number>([0, 1, MAX_ASN - 1, MAX_ASN])
  for (const { pairs } of snapshots) {
    const asns = pairs.map(([a]) => a)
    const at = new Set<number>()
    for (let i = 0; i <= asns.length; i += K)
      for (const p of [i - 1, i, i + 1, asns.length - 1]) if (p >= 0 && p < asns.length) at.add(p)
    for (const p of at)
      for (const d of [-1, 0, 1]) {
        const v = asns[p]! + d
        if (v >= 0 && v <= MAX_ASN) out.add(v)
      }
    for (let p = 0; p + 1 < asns.length; p++)
      if (at.has(p) || p % 17 === 0) for (const v of straddling(asns, p)) out.add(v)
  }
  return [...out]
}

/** The ASNs of `view` as `[asn, points, known]`, for a comparison that names the ASN. */
const entries = (view: TrendView) =>
  [...view.trends].map(([asn, points]) => [asn, points, view.known.has(asn)] as const)

// Sizes at the stride's edges (0 to three blocks and a bit), ASNs dense (shared between
// snapshots, whole blocks of neighbours) or anywhere up to 2^32 - 1, shells of one, two or
// four bytes.
const size = fc.oneof(
  fc.constantFrom(0, 1, 2, K - 1, K, K + 1, 2 * K - 1, 2 * K, 2 * K + 1, 3 * K + 7),
  fc.integer({ min: 0, max: 4 * K }),
)
const asn = fc.oneof(
  fc.integer({ min: 0, max: 3 * K }),
  fc.integer({ min: 0, max: 20 * K }),
  fc.constantFrom(0, 1, 65_535, 65_536, MAX_ASN - 1, MAX_ASN),
  fc.integer({ min: 0, max: MAX_ASN }),
)
const snapshot = fc
  .tuple(size, fc.constantFrom(5, 300, 70_000))
  .chain(([n, maxShell]) =>
    fc.tuple(
      fc.uniqueArray(asn, { minLength: n, maxLength: n }),
      fc.array(fc.integer({ min: 0, max: maxShell }), { minLength: n, maxLength: n }),
    ),
  )
  .map(([asns, shells]): Pairs => {
    const pairs = asns.map((a, i): [number, number] => [a, shells[i]!])
    return pairs.sort((a, b) => a[0] - b[0])
  })
const DATES = ['1998-01-01', '2004-02-29', '2013-01-01', '2024-08-01']

/** Stores `pairs` as the IPv4 snapshot of `date` (one link per AS). */
function ingestPairs(store: KcoreStore, date: string, pairs: Pairs) {
  return store.ingest({
    ipVersion: 'ipv4',
    date,
    decomposition: decomposition(pairs),
    linkCount: pairs.length,
  })
}

/**
 * What {@link entries} of a view of `asns` (each once) over `stored` must be: the points in
 * `range`, and whether any snapshot has the AS.
 */
function expectedEntries(
  stored: { date: string; pairs: Pairs }[],
  asns: number[],
  range?: { start: string; end: string },
) {
  return [...new Set(asns)].map((a) => {
    const points = expectedPoints(stored, a)
    const shown = range
      ? points.filter((p) => p.date >= range.start && p.date <= range.end)
      : points
    return [a, shown, points.length > 0] as const
  })
}

/** Ingests `list` as IPv4 snapshots of DATES (in order), one IPv6 snapshot of the first. */
async function ingestAll(database: Database, list: Pairs[]) {
  const store = createKcoreStore(database, { trendReadModel: false })
  const stored = list.map((pairs, i) => ({ date: DATES[i]!, pairs }))
  for (const { date, pairs } of stored) await ingestPairs(store, date, pairs)
  await store.ingest({
    ipVersion: 'ipv6',
    date: DATES[0]!,
    decomposition: decomposition([[list[0]![0]?.[0] ?? 7, 3]]),
    linkCount: 1,
  })
  return stored
}

/** The fence stored beside each IPv4 snapshot. */
async function storedFences(database: Database) {
  const { rows } = await sql<{ date: string; fence: string[] | number[] }>`
    select date::text as date, fence from kcore_snapshot_shells where ip_version = 'ipv4'
    order by date`.execute(database.db)
  return rows.map((r) => ({ date: r.date, fence: r.fence.map(Number) }))
}

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
    const database = await open()
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
            const range = bounds && {
              start: bounds[0] < bounds[1] ? bounds[0] : bounds[1],
              end: bounds[0] < bounds[1] ? bounds[1] : bounds[0],
            }
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
    const database = await open()
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
    const database = await open()
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

  it('answers from one committed state while another connection re-ingests the date', async () => {
    const database = await open()
    const store = createKcoreStore(database, { trendReadModel: false })
    await store.migrate()
    const other = await secondConnection(database)
    const writer = createKcoreStore(other, { trendReadModel: false })
    try {
      // Two versions of one date whose blocks start at different ASNs: A is 1..600 (shell 1),
      // B is 301..900 (shell 2); a mix of one's fence with the other's blob would misplace them.
      const versions = {
        A: Array.from({ length: 600 }, (_, i): [number, number] => [i + 1, 1]),
        B: Array.from({ length: 600 }, (_, i): [number, number] => [i + 301, 2]),
      }
      const ingest = (pairs: Pairs) =>
        writer.ingest({
          ipVersion: 'ipv4',
          date: '2024-05-01',
          decomposition: decomposition(pairs),
          linkCount: pairs.length,
        })
      await ingest(versions.A)
      const probe = [1, 256, 257, 300, 301, 556, 557, 600, 601, 856, 857, 900, 901]
      const expected = Object.entries(versions).map(([name, pairs]) => {
        const stored = [{ date: '2024-05-01', pairs }]
        return { name, entries: probe.map((a) => [a, expectedPoints(stored, a)] as const) }
      })
      let writing = true
      const writes = (async () => {
        for (let i = 0; i < 8; i++) await ingest(i % 2 === 0 ? versions.B : versions.A)
        writing = false
      })()
      const seen = new Set<string>()
      while (writing) {
        const view = await queryTrends(database.db as never, 'ipv4', probe)
        const got = [...view.trends]
        const match = expected.find((e) => JSON.stringify(e.entries) === JSON.stringify(got))
        expect(match, JSON.stringify(got)).toBeDefined()
        seen.add(match!.name)
      }
      await writes
      expect(seen).toEqual(new Set(['A', 'B']))
      // And in the database: every fence is its own blob's.
      expect(await fenceMismatches(database)).toBe(0)
    } finally {
      await other.close()
      await database.close()
    }
  })

  it('answers real snapshots as the engine decomposed them, at random and edge ASNs', async () => {
    const database = await open()
    const store = createKcoreStore(database, { trendReadModel: false })
    await store.migrate()
    try {
      const stored: { date: string; pairs: Pairs }[] = []
      for (const [date, file] of [
        ['2013-01-01', '20130101.as-rel.txt.bz2'],
        ['2024-08-01', '20240801.as-rel.txt.bz2'],
      ] as const) {
        const { decomposition: d, graph } = await decomposeSnapshot(
          new Uint8Array(await readFile(join(CAIDA_DIR, file))),
        )
        await store.ingest({
          ipVersion: 'ipv4',
          date,
          decomposition: d,
          linkCount: graph.linkCount,
        })
        stored.push({
          date,
          pairs: Array.from(d.asns, (a, i): [number, number] => [a, d.shells[i]!]).sort(
            (x, y) => x[0] - y[0],
          ),
        })
      }
      const byAsn = stored.map(({ pairs }) => new Map(pairs))
      const all = [...new Set(stored.flatMap(({ pairs }) => pairs.map(([a]) => a)))]
      const edges = edgeAsns(stored)
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.oneof(fc.constantFrom(...all), fc.constantFrom(...edges), asn), {
            minLength: 1,
            maxLength: 8,
          }),
          async (asns) => {
            const view = await queryTrends(database.db as never, 'ipv4', asns)
            for (const a of asns) {
              const points = view.trends.get(a)!
              expect(
                points.map((p) => [p.date, p.shell_index]),
                `ASN ${a}`,
              ).toEqual(
                stored.flatMap(({ date }, i) =>
                  byAsn[i]!.has(a) ? [[date, byAsn[i]!.get(a)!]] : [],
                ),
              )
              expect(view.known.has(a)).toBe(points.length > 0)
            }
          },
        ),
        { numRuns: propertyRuns(100, 25) },
      )
    } finally {
      await database.close()
    }
  }, 120_000)
})

/** The migrations before the fences: the blob layout of 0005. */
const BEFORE_FENCES = Object.fromEntries(
  Object.entries(migrations).filter(([id]) => id < '0006'),
) as typeof migrations

describe.each(testDatabases())('migration 0006 on $name', ({ open }) => {
  it('cuts a fence for every stored snapshot, answers from it, and goes back down', async () => {
    const database = await open()
    try {
      await migrateToLatest(
        database.db,
        {
          provider: { getMigrations: async () => BEFORE_FENCES },
          table: KCORE_MIGRATION_TABLE,
          lockTable: KCORE_MIGRATION_LOCK_TABLE,
        },
        (message) => new Error(message),
      )
      // Snapshots written as the 0005 ingest wrote them: sizes around the stride, one empty.
      const stored: { date: string; pairs: Pairs }[] = []
      for (const [i, n] of [0, 1, K, K + 1, 3 * K - 1, 1_000].entries()) {
        const pairs = Array.from({ length: n }, (_, j): [number, number] => [
          j * (i + 2) + i,
          (j * 7) % (i === 5 ? 300 : 9),
        ])
        const date = `${2001 + i}-01-01`
        stored.push({ date, pairs })
        const blobs = encodeShells(
          pairs.map(([a]) => a),
          pairs.map(([, s]) => s),
        )
        await sql`insert into kcore_snapshot (ip_version, date, max_shell_index, unique_asns,
            link_count) values ('ipv4', ${date}::date,
            ${pairs.reduce((m, [, s]) => Math.max(m, s), 0)}, ${n}, ${n})`.execute(database.db)
        await sql`insert into kcore_snapshot_shells (ip_version, date, asns, shells)
          values ('ipv4', ${date}::date, ${blobParam(blobs.asns)}, ${blobParam(blobs.shells)})`.execute(
          database.db,
        )
      }
      const fencesOf = () =>
        stored.map(({ date, pairs }) => ({
          date,
          fence: Array.from(fenceOf(Uint32Array.from(pairs, ([a]) => a))),
        }))

      await createKcoreStore(database).migrate()
      expect(await storedFences(database)).toEqual(fencesOf())
      const asns = edgeAsns(stored)
      const view = await queryTrends(database.db as never, 'ipv4', asns)
      expect(entries(view)).toEqual(expectedEntries(stored, asns))

      const migrator = new Migrator({
        db: database.db,
        provider: kcoreMigrationProvider,
        migrationTableName: KCORE_MIGRATION_TABLE,
        migrationLockTableName: KCORE_MIGRATION_LOCK_TABLE,
      })
      const down = await migrator.migrateTo('0005_compact_shells')
      expect(down.error).toBeUndefined()
      expect(down.results?.map((r) => r.migrationName)).toEqual([
        '0009_as_registry',
        '0008_drop_trend_index',
        '0007_trend_index',
        '0006_asn_fences',
      ])
      const { rows: columns } = await sql<{ name: string }>`select column_name as name
        from information_schema.columns where table_name = 'kcore_snapshot_shells'
        order by 1`.execute(database.db)
      expect(columns.map((c) => c.name)).toEqual(['asns', 'date', 'ip_version', 'shells'])
      for (const { date, pairs } of stored)
        expect(await storedShells(database, 'ipv4', date)).toEqual(pairs)

      // And up again, as a later deploy would.
      await createKcoreStore(database).migrate()
      expect(await storedFences(database)).toEqual(fencesOf())
    } finally {
      await database.close()
    }
  })
})
