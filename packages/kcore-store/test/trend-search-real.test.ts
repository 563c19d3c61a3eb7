import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { migrateToLatest } from '@kcore/db'
import { propertyRuns, testDatabases } from '@kcore/db/testing'
import { decomposeSnapshot } from '@kcore/engine'
import fc from 'fast-check'
import { Migrator, sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createKcoreStore } from '../src/index.js'
import {
  KCORE_MIGRATION_LOCK_TABLE,
  KCORE_MIGRATION_TABLE,
  kcoreMigrationProvider,
  kcoreMigrations as migrations,
} from '../src/migrations.js'
import { queryTrends } from '../src/query-trends.js'
import { blobParam, encodeShells, fenceOf } from '../src/shell-blobs.js'
import { migrateKcore } from '../src/testing.js'
import {
  CAIDA_DIR,
  decomposition,
  fenceMismatches,
  secondConnection,
  storedShells,
} from './helpers.js'

import {
  asn,
  edgeAsns,
  entries,
  expectedEntries,
  expectedPoints,
  K,
  type Pairs,
  storedFences,
} from './trend-search-cases.js'

// The trend search on real files as the engine decomposed them, from one committed state while
// another connection re-ingests, and after migration 0006 cut the fences of stored snapshots.

describe.each(testDatabases())(
  'the trend search on real and replaced snapshots on $name',
  ({ open }) => {
    it('answers from one committed state while another connection re-ingests the date', async () => {
      const database = await open(migrateKcore)
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
      const database = await open(migrateKcore)
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
  },
)

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
        '0011_revision_payload',
        '0010_snapshot_links',
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
