import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import fc from 'fast-check'
import { type Kysely, Migrator, sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  AsnNotFoundError,
  createKcoreStore,
  InvalidQueryError,
  type KcoreStore,
  KcoreStoreError,
  RefreshInProgressError,
  SnapshotNotFoundError,
} from '../src/index.js'
import {
  KCORE_MIGRATION_LOCK_TABLE,
  KCORE_MIGRATION_TABLE,
  kcoreMigrationProvider,
} from '../src/migrations.js'
import { migrateKcore } from '../src/testing.js'
import { clearKcoreTables, decomposition } from './helpers.js'

/** Small snapshots: distinct ASNs biased to 0 and 2^32-1, shells biased to 0 and small values. */
const snapshotArb = fc.uniqueArray(
  fc.tuple(
    fc.oneof(fc.constantFrom(0, 1, 4_294_967_295), fc.integer({ min: 0, max: 4_294_967_295 })),
    fc.oneof(fc.constantFrom(0, 1), fc.integer({ min: 0, max: 12 })),
  ),
  { minLength: 1, maxLength: 40, selector: ([asn]) => asn },
)

const byAsn = (pairs: [number, number][]) => [...pairs].sort((a, b) => a[0] - b[0])

describe.each(testDatabases())('research queries on $name', ({ open }) => {
  let database: Database
  let store: KcoreStore

  beforeAll(async () => {
    database = await open(migrateKcore)
    store = createKcoreStore(database)
    await store.migrate()
  })
  afterAll(async () => {
    await database?.close()
  })
  beforeEach(async () => {
    await clearKcoreTables(database)
  })

  const put = (date: string, pairs: [number, number][], ipVersion: 'ipv4' | 'ipv6' = 'ipv4') =>
    store.ingest({ ipVersion, date, decomposition: decomposition(pairs), linkCount: 1 })

  it('core, top, shell pages and distribution match a brute force on any snapshot', async () => {
    await fc.assert(
      fc.asyncProperty(
        snapshotArb,
        fc.integer({ min: 0, max: 14 }),
        fc.integer({ min: 1, max: 45 }),
        fc.integer({ min: 1, max: 7 }),
        async (pairs, k, top, pageSize) => {
          await clearKcoreTables(database)
          await put('2024-01-01', pairs)
          const sorted = byAsn(pairs)
          const max = Math.max(...pairs.map(([, s]) => s))
          const core = await (await store.reader()).core('ipv4', '2024-01-01', { k })
          expect(core.asns).toEqual(sorted.filter(([, s]) => s >= k).map(([a]) => a))
          const innermost = await (await store.reader()).core('ipv4', '2024-01-01')
          expect(innermost.k).toBe(max)
          expect(innermost.asns).toEqual(sorted.filter(([, s]) => s === max).map(([a]) => a))
          const ranked = [...pairs].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, top)
          const topped = await (await store.reader()).core('ipv4', '2024-01-01', { top })
          expect(topped.asns).toEqual(ranked.map(([a]) => a).sort((a, b) => a - b))
          expect(topped.k).toBe(ranked.at(-1)![1])
          const rows: [number, number][] = []
          for await (const row of (await store.reader()).shells('ipv4', '2024-01-01', {
            pageSize,
            minShell: k,
          }))
            rows.push([row.asn, row.shell_index])
          expect(rows).toEqual(sorted.filter(([, s]) => s >= k))
          const { shells } = await (await store.reader()).distribution('ipv4', '2024-01-01')
          expect(shells.reduce((n, s) => n + s.count, 0)).toBe(pairs.length)
          for (const { shell_index, count } of shells)
            expect(count).toBe(pairs.filter(([, s]) => s === shell_index).length)
        },
      ),
      { numRuns: 25 },
    )
  })

  it('movers: absent ASes count as outside the core; a zero maximum normalizes to 0', async () => {
    await put('2024-01-01', [
      [1, 0],
      [2, 0],
      [3, 0],
    ])
    await put('2024-02-01', [
      [2, 2],
      [3, 1],
      [4, 2],
    ])
    const movers = await (await store.reader()).movers('ipv4', '2024-01-01', '2024-02-01')
    expect(movers).toEqual({
      ip_version: 'ipv4',
      from: '2024-01-01',
      to: '2024-02-01',
      k: 2,
      entered: [
        { asn: 2, from_shell: 0, to_shell: 2 },
        { asn: 4, from_shell: null, to_shell: 2 },
      ],
      left: [],
      risers: [
        { asn: 2, from_shell: 0, to_shell: 2, change: 1 },
        { asn: 3, from_shell: 0, to_shell: 1, change: 0.5 },
      ],
      fallers: [],
    })
    const back = await (await store.reader()).movers('ipv4', '2024-02-01', '2024-01-01', {
      k: 0,
      limit: 1,
    })
    expect(back.left).toEqual([{ asn: 4, from_shell: 2, to_shell: null }])
    expect(back.entered).toEqual([{ asn: 1, from_shell: null, to_shell: 0 }])
    expect(back.fallers).toEqual([{ asn: 2, from_shell: 2, to_shell: 0, change: -1 }])
    const same = await (await store.reader()).movers('ipv4', '2024-02-01', '2024-02-01', { k: 1 })
    expect([same.entered, same.left, same.risers, same.fallers]).toEqual([[], [], [], []])
  })

  it('refuses options out of range before any SQL, with InvalidQueryError naming the field', async () => {
    await put('2024-01-01', [[1, 1]])
    const bad: [string, () => Promise<unknown>][] = [
      ['k', async () => (await store.reader()).core('ipv4', '2024-01-01', { k: -1 })],
      ['k', async () => (await store.reader()).core('ipv4', '2024-01-01', { k: 1.5 })],
      ['k', async () => (await store.reader()).core('ipv4', '2024-01-01', { k: 2 ** 53 })],
      [
        'k',
        async () =>
          (await store.reader()).movers('ipv4', '2024-01-01', '2024-01-01', { k: 2 ** 53 }),
      ],
      [
        'minShell',
        async () =>
          (await store.reader()).shells('ipv4', '2024-01-01', { minShell: 2 ** 53 }).next(),
      ],
      ['k', async () => (await store.reader()).core('ipv4', '2024-01-01', { k: Number.NaN })],
      ['top', async () => (await store.reader()).core('ipv4', '2024-01-01', { top: 0 })],
      ['top', async () => (await store.reader()).core('ipv4', '2024-01-01', { top: 10_001 })],
      [
        'top',
        async () =>
          (await store.reader()).core('ipv4', '2024-01-01', { top: '5' as unknown as number }),
      ],
      [
        'limit',
        async () => (await store.reader()).movers('ipv4', '2024-01-01', '2024-01-01', { limit: 0 }),
      ],
      [
        'limit',
        async () =>
          (await store.reader()).movers('ipv4', '2024-01-01', '2024-01-01', { limit: 10_001 }),
      ],
      [
        'k',
        async () => (await store.reader()).movers('ipv4', '2024-01-01', '2024-01-01', { k: -1 }),
      ],
      [
        'minShell',
        async () => (await store.reader()).shells('ipv4', '2024-01-01', { minShell: -1 }).next(),
      ],
      [
        'pageSize',
        async () => (await store.reader()).shellPages('ipv4', '2024-01-01', { pageSize: 0 }).next(),
      ],
      [
        'pageSize',
        async () =>
          (await store.reader()).shellPages('ipv4', '2024-01-01', { pageSize: 100_001 }).next(),
      ],
    ]
    for (const [field, call] of bad) {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error, field).toBeInstanceOf(InvalidQueryError)
      expect((error as InvalidQueryError).field).toBe(field)
      expect((error as InvalidQueryError).code).toBe('invalid_query')
    }
    const top = await (await store.reader()).core('ipv4', '2024-01-01', { top: 10_000 })
    expect(top.asns).toEqual([1])
    // Far above any int4 shell index: empty answers, not errors.
    const huge = 2 ** 53 - 1
    expect((await (await store.reader()).core('ipv4', '2024-01-01', { k: huge })).asns).toEqual([])
    const movers = await (await store.reader()).movers('ipv4', '2024-01-01', '2024-01-01', {
      k: huge,
    })
    expect(movers.k).toBe(huge)
    expect(
      await (await store.reader()).shells('ipv4', '2024-01-01', { minShell: huge }).next(),
    ).toEqual({
      done: true,
      value: undefined,
    })
  })

  it('names a date that is not stored (of that version) with SnapshotNotFoundError', async () => {
    await put('2024-01-01', [[1, 1]], 'ipv6')
    const calls = [
      async () => (await store.reader()).snapshot('ipv4', '2024-01-01'),
      async () => (await store.reader()).core('ipv4', '2024-01-01'),
      async () => (await store.reader()).distribution('ipv4', '2024-01-01'),
      async () => (await store.reader()).shellPages('ipv4', '2024-01-01').next(),
      async () => (await store.reader()).movers('ipv6', '2024-01-01', '2024-02-01'),
      async () => (await store.reader()).movers('ipv6', '1000-01-01', '2024-01-01'),
    ]
    for (const call of calls) {
      const error = await call().catch((e: unknown) => e)
      expect(error).toBeInstanceOf(SnapshotNotFoundError)
      expect(error).toBeInstanceOf(KcoreStoreError)
      expect((error as SnapshotNotFoundError).code).toBe('snapshot_not_found')
    }
    await expect((await store.reader()).snapshot('ipv4', '2024-02-30')).rejects.toThrow(
      InvalidQueryError,
    )
  })

  it('overviews an AS in either version and refuses one in neither', async () => {
    await put('2024-01-01', [
      [4_294_967_295, 3],
      [7, 1],
    ])
    await put('2024-02-01', [[7, 2]], 'ipv6')
    const overview = await (await store.reader()).asnOverview(4_294_967_295)
    expect(overview.ipv4?.latest).toEqual({
      date: '2024-01-01',
      shell_index: 3,
      max_shell_index: 3,
      normalized_shell_index: 1,
    })
    expect(overview.ipv6).toBeNull()
    expect((await (await store.reader()).asnOverview(7)).ipv6?.snapshots).toBe(1)
    const error = await (await store.reader()).asnOverview(0).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AsnNotFoundError)
    expect((error as AsnNotFoundError).code).toBe('asn_not_found')
    await expect((await store.reader()).asnOverview(2 ** 32)).rejects.toThrow(InvalidQueryError)
  })

  it('keeps every typed error in one hierarchy with a stable code', () => {
    expect(new RefreshInProgressError()).toBeInstanceOf(KcoreStoreError)
    expect(new RefreshInProgressError().code).toBe('refresh_in_progress')
  })

  it('upgrades a 0001 database in place: old rows get a serial from their file name, null elsewhere', async () => {
    const fresh = await open()
    try {
      const migrator = new Migrator({
        db: fresh.db as Kysely<unknown>,
        provider: kcoreMigrationProvider,
        migrationTableName: KCORE_MIGRATION_TABLE,
        migrationLockTableName: KCORE_MIGRATION_LOCK_TABLE,
      })
      expect((await migrator.migrateTo('0001_initial')).error).toBeUndefined()
      await sql`insert into kcore_snapshot (ip_version, date, max_shell_index, unique_asns, link_count, source)
        values ('ipv4', '2024-01-01', 1, 1, 1, '20240101.as-rel2.txt.bz2'),
               ('ipv4', '2024-02-01', 1, 1, 1, '20240201.as-rel.txt.bz2'),
               ('ipv6', '2024-01-01', 1, 1, 1, null)`.execute(fresh.db)
      const upgraded = createKcoreStore(fresh)
      await upgraded.migrate()
      const rows = [
        ...(await (await upgraded.reader()).snapshots('ipv4')),
        ...(await (await upgraded.reader()).snapshots('ipv6')),
      ].map(({ serial, source_url, sha256, file_modified, engine_version }) => ({
        serial,
        source_url,
        sha256,
        file_modified,
        engine_version,
      }))
      const unknown = { source_url: null, sha256: null, file_modified: null, engine_version: null }
      expect(rows).toEqual([
        { serial: 2, ...unknown },
        { serial: 1, ...unknown },
        { serial: null, ...unknown },
      ])
    } finally {
      await fresh.close()
    }
  })
})
