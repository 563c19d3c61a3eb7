import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { ENGINE_VERSION } from '@kcore/engine'
import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createKcoreStore, InvalidQueryError, type KcoreStore } from '../src/index.js'
import { kcoreMigrations as migrations } from '../src/migrations.js'
import { migrateKcore } from '../src/testing.js'
import {
  clearKcoreTables,
  countRows,
  decomposition,
  fenceMismatches,
  secondConnection,
  storedAsnCount,
  storedShells,
} from './helpers.js'

describe.each(testDatabases())('kcore store on $name', ({ open }) => {
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

  describe('migrate', () => {
    it('is idempotent', async () => {
      await store.migrate()
      await store.migrate()
      expect(await countRows(database, 'kcore_migration')).toBe(Object.keys(migrations).length)
      expect(await (await store.reader()).snapshotCount()).toBe(0)
    })

    it('runs once when two stores migrate a fresh database at the same time', async () => {
      const fresh = await open()
      const other = await secondConnection(fresh)
      try {
        const a = createKcoreStore(fresh)
        const b = createKcoreStore(other)
        await Promise.all([a.migrate(), b.migrate(), a.migrate()])
        expect(await countRows(fresh, 'kcore_migration')).toBe(Object.keys(migrations).length)
        await a.ingest({
          ipVersion: 'ipv4',
          date: '2024-01-01',
          decomposition: decomposition([[1, 1]]),
          linkCount: 1,
        })
        expect(await (await b.reader()).storedDates('ipv4')).toEqual(['2024-01-01'])
      } finally {
        await other.close()
        await fresh.close()
      }
    })
  })

  describe('ingest and queries', () => {
    beforeEach(async () => {
      await store.ingest({
        ipVersion: 'ipv4',
        date: '2024-02-01',
        decomposition: decomposition([
          [174, 3],
          [3356, 3],
          [64512, 1],
          [4_200_000_000, 2],
        ]),
        linkCount: 5,
        metadata: { inputClique: [174, 3356], inferredClique: [], ixpAses: [] },
        source: '20240201.as-rel.txt.bz2',
      })
      await store.ingest({
        ipVersion: 'ipv4',
        date: '2024-01-01',
        decomposition: decomposition([
          [174, 7],
          [3356, 6],
          [65000, 1],
        ]),
        linkCount: 9,
        source: '20240101.as-rel.txt.bz2',
      })
      await store.ingest({
        ipVersion: 'ipv6',
        date: '2024-01-01',
        decomposition: decomposition([
          [174, 2],
          [6939, 2],
        ]),
        linkCount: 1,
      })
    })

    it('lists snapshots oldest first with their figures', async () => {
      // What a direct store.ingest records: the serial read from the name, the engine version.
      const noProvenance = {
        source_url: null,
        serial: 1,
        sha256: null,
        file_modified: null,
        engine_version: ENGINE_VERSION,
      }
      const list = await (await store.reader()).snapshots('ipv4')
      expect(list.map(({ ingested_at, ...rest }) => rest)).toEqual([
        {
          date: '2024-01-01',
          max_shell_index: 7,
          unique_asns: 3,
          link_count: 9,
          source: '20240101.as-rel.txt.bz2',
          ...noProvenance,
        },
        {
          date: '2024-02-01',
          max_shell_index: 3,
          unique_asns: 4,
          link_count: 5,
          source: '20240201.as-rel.txt.bz2',
          ...noProvenance,
        },
      ])
      for (const s of list) {
        expect(s.ingested_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        expect(Math.abs(Date.parse(s.ingested_at) - Date.now())).toBeLessThan(10 * 60_000)
      }
      expect(
        (await (await store.reader()).snapshots('ipv6')).map((s) => [s.date, s.source]),
      ).toEqual([['2024-01-01', null]])
    })

    it('answers stored dates, date range and counts per version', async () => {
      expect(await (await store.reader()).storedDates('ipv4')).toEqual(['2024-01-01', '2024-02-01'])
      expect(await (await store.reader()).storedDates('ipv6')).toEqual(['2024-01-01'])
      expect((await (await store.reader()).trends('ipv4', [])).dateRange).toEqual({
        earliest: '2024-01-01',
        latest: '2024-02-01',
      })
      expect(await (await store.reader()).snapshotCount()).toBe(3)
    })

    it('summarizes each version', async () => {
      expect(await (await store.reader()).summary()).toEqual({
        ipv4: {
          snapshot_count: 2,
          date_range: ['2024-01-01', '2024-02-01'],
          total_asns: 5,
          max_shell_index: 7,
        },
        ipv6: {
          snapshot_count: 1,
          date_range: ['2024-01-01', '2024-01-01'],
          total_asns: 2,
          max_shell_index: 2,
        },
      })
    })

    it('returns trends oldest first with full-precision normalization', async () => {
      const trends = (await (await store.reader()).trends('ipv4', [3356, 4_200_000_000])).trends
      expect(trends.get(3356)).toEqual([
        { date: '2024-01-01', shell_index: 6, max_shell_index: 7, normalized_shell_index: 6 / 7 },
        { date: '2024-02-01', shell_index: 3, max_shell_index: 3, normalized_shell_index: 1 },
      ])
      expect(trends.get(4_200_000_000)).toEqual([
        { date: '2024-02-01', shell_index: 2, max_shell_index: 3, normalized_shell_index: 2 / 3 },
      ])
      expect([...trends.keys()]).toEqual([3356, 4_200_000_000])
    })

    it('keeps versions apart', async () => {
      const v6 = (await (await store.reader()).trends('ipv6', [174, 3356])).trends
      expect(v6.get(174)?.map((p) => [p.date, p.shell_index])).toEqual([['2024-01-01', 2]])
      expect(v6.get(3356)).toEqual([])
      expect((await (await store.reader()).trends('ipv6', [174, 3356, 6939])).known).toEqual(
        new Set([174, 6939]),
      )
    })

    it('filters by an inclusive date range, either end open', async () => {
      const dates = async (range: { start?: string; end?: string }) =>
        (await (await store.reader()).trends('ipv4', [174], range)).trends
          .get(174)
          ?.map((p) => p.date)
      expect(await dates({ start: '2024-02-01' })).toEqual(['2024-02-01'])
      expect(await dates({ end: '2024-01-01' })).toEqual(['2024-01-01'])
      expect(await dates({ start: '2024-01-01', end: '2024-02-01' })).toEqual([
        '2024-01-01',
        '2024-02-01',
      ])
      expect(await dates({ start: '2024-01-02', end: '2024-01-31' })).toEqual([])
      expect(await dates({ start: '2030-01-01' })).toEqual([])
    })

    it('answers unknown ASNs with empty trends and deduplicates the request', async () => {
      const trends = (await (await store.reader()).trends('ipv4', [99999, 174, 99999, 174])).trends
      expect([...trends.keys()]).toEqual([99999, 174])
      expect(trends.get(99999)).toEqual([])
      expect(trends.get(174)).toHaveLength(2)
      expect((await (await store.reader()).trends('ipv4', [])).trends).toEqual(new Map())
      expect(
        (await (await store.reader()).trends('ipv4', [99999, 65000, 64512, 65000])).known,
      ).toEqual(new Set([65000, 64512]))
      expect((await (await store.reader()).trends('ipv4', [])).known).toEqual(new Set())
    })

    it('rejects bad arguments before touching the database, with InvalidQueryError', async () => {
      // The store's typed error (a KcoreStoreError, code 'invalid_query', the argument named),
      // not a bare RangeError.
      const field = (name: string) =>
        expect.objectContaining({ code: 'invalid_query', field: name })
      const rejects = async (call: Promise<unknown>, name: string) => {
        await expect(call).rejects.toBeInstanceOf(InvalidQueryError)
        await expect(call).rejects.toEqual(field(name))
      }
      await rejects(
        store
          .reader()
          .then((r) => r.trends('ipv4', [-1]))
          .then((v) => v.trends),
        'asns',
      )
      await rejects(
        store
          .reader()
          .then((r) => r.trends('ipv4', [1.5]))
          .then((v) => v.trends),
        'asns',
      )
      await rejects(
        store
          .reader()
          .then((r) => r.trends('ipv4', [2 ** 32]))
          .then((v) => v.trends),
        'asns',
      )
      await rejects((await store.reader()).asnOverview(2 ** 32), 'asns')
      await rejects(
        store
          .reader()
          .then((r) => r.trends('ipv5' as 'ipv4', [1]))
          .then((v) => v.trends),
        'ipVersion',
      )
      await rejects(
        store
          .reader()
          .then((r) => r.trends('ipv4', [1], { start: '2024-02-30' }))
          .then((v) => v.trends),
        'start date',
      )
      await rejects(
        store
          .reader()
          .then((r) => r.trends('ipv4', [1], { start: '2024-03-01', end: '2024-02-01' }))
          .then((v) => v.trends),
        'start date',
      )
      await rejects(
        store
          .reader()
          .then((r) => r.trends('ipv4', [Number.NaN]))
          .then((v) => v.known),
        'asns',
      )
      await rejects((await store.reader()).snapshot('ipv4', '2024-02-30'), 'snapshot date')
    })

    it('replaces a re-issued date and forgets ASNs no longer seen anywhere', async () => {
      await store.ingest({
        ipVersion: 'ipv4',
        date: '2024-02-01',
        decomposition: decomposition([
          [174, 2],
          [1, 1],
          [70000, 2],
        ]),
        linkCount: 3,
        source: '20240201.as-rel.txt.bz2 (reissued)',
      })
      expect(await (await store.reader()).storedDates('ipv4')).toEqual(['2024-01-01', '2024-02-01'])
      const feb = (await (await store.reader()).snapshots('ipv4'))[1]
      expect(feb).toMatchObject({ max_shell_index: 2, unique_asns: 3, link_count: 3 })
      expect(feb?.source).toContain('reissued')
      const trends = (
        await (await store.reader()).trends('ipv4', [174, 64512, 4_200_000_000, 70000])
      ).trends
      expect(trends.get(174)?.map((p) => p.shell_index)).toEqual([7, 2])
      expect(trends.get(64512)).toEqual([])
      expect(trends.get(70000)?.map((p) => p.normalized_shell_index)).toEqual([1])
      // 3356 left February but is still in January; 64512 and 4200000000 are gone everywhere.
      expect(
        (
          await (
            await store.reader()
          ).trends('ipv4', [174, 3356, 64512, 4_200_000_000, 70000, 65000, 1])
        ).known,
      ).toEqual(new Set([174, 3356, 70000, 65000, 1]))
      expect((await (await store.reader()).summary()).ipv4?.total_asns).toBe(5)
      expect(
        (await (await store.reader()).trends('ipv4', [3356])).trends.get(3356)?.map((p) => p.date),
      ).toEqual(['2024-01-01'])
      expect(await storedAsnCount(database, 'ipv4')).toBe(6)
    })

    it('stores one whole version when two connections ingest the same date at once', async () => {
      const other = await secondConnection(database)
      try {
        const otherStore = createKcoreStore(other)
        const a = decomposition(
          Array.from({ length: 3000 }, (_, i) => [i + 1, 1] as [number, number]),
        )
        const b = decomposition(
          Array.from({ length: 2000 }, (_, i) => [i + 5001, 2] as [number, number]),
        )
        await Promise.all([
          store.ingest({
            ipVersion: 'ipv4',
            date: '2024-05-01',
            decomposition: a,
            linkCount: 1,
            source: 'a',
          }),
          otherStore.ingest({
            ipVersion: 'ipv4',
            date: '2024-05-01',
            decomposition: b,
            linkCount: 2,
            source: 'b',
          }),
        ])
        const [snapshot] = (await (await store.reader()).snapshots('ipv4')).filter(
          (s) => s.date === '2024-05-01',
        )
        const pairs = await storedShells(database, 'ipv4', '2024-05-01')
        const winner =
          snapshot?.source === 'a'
            ? { n: 3000, lo: 1, hi: 3000, shell: 1 }
            : { n: 2000, lo: 5001, hi: 7000, shell: 2 }
        expect({
          n: pairs.length,
          lo: pairs[0]?.[0],
          hi: pairs.at(-1)?.[0],
          shell: pairs[0]?.[1],
        }).toEqual(winner)
        expect(new Set(pairs.map(([, shell]) => shell))).toEqual(new Set([winner.shell]))
        expect(snapshot?.unique_asns).toBe(winner.n)
        // The loser's ASNs are not left in the known-ASN table.
        const loserProbe = snapshot?.source === 'a' ? 5001 : 1
        expect((await (await store.reader()).trends('ipv4', [loserProbe])).known).toEqual(new Set())
        // The fence stored is the winner's: every fence is its own blob's.
        expect(await fenceMismatches(database)).toBe(0)
      } finally {
        await other.close()
      }
    })

    it('leaves nothing behind when the insert fails mid-way', async () => {
      // A trigger makes the shell insert fail after the snapshot row is already written: on a
      // blob holding ASN 666 (uint32 little-endian 9a 02 00 00).
      await sql`create function kcore_test_fail() returns trigger language plpgsql as $$
        begin if position(decode('9a020000', 'hex') in new.asns) > 0 then
          raise exception 'injected failure'; end if; return new; end $$`.execute(database.db)
      await sql`create trigger kcore_test_fail before insert on kcore_snapshot_shells
        for each row execute function kcore_test_fail()`.execute(database.db)
      try {
        const before = await (await store.reader()).snapshots('ipv4')
        await expect(
          store.ingest({
            ipVersion: 'ipv4',
            date: '2024-03-01',
            decomposition: decomposition([
              [1, 1],
              [666, 1],
              [1000, 1],
            ]),
            linkCount: 2,
          }),
        ).rejects.toThrow(/injected failure/)
        // A failed replacement keeps the old version whole.
        await expect(
          store.ingest({
            ipVersion: 'ipv4',
            date: '2024-02-01',
            decomposition: decomposition([[666, 1]]),
            linkCount: 1,
          }),
        ).rejects.toThrow(/injected failure/)
        expect(await (await store.reader()).snapshots('ipv4')).toEqual(before)
        expect(await storedAsnCount(database, 'ipv4')).toBe(7)
        expect((await (await store.reader()).trends('ipv4', [1, 666, 1000, 64512])).known).toEqual(
          new Set([64512]),
        )
      } finally {
        await sql`drop trigger kcore_test_fail on kcore_snapshot_shells`.execute(database.db)
        await sql`drop function kcore_test_fail()`.execute(database.db)
      }
    })

    it('rejects malformed snapshots without storing anything', async () => {
      const good = decomposition([[1, 1]])
      const bad = [
        { date: '2024-02-30', decomposition: good },
        { date: '2024-03-01', decomposition: { ...good, maxShell: 5 } },
        {
          date: '2024-03-01',
          decomposition: { asns: Uint32Array.of(1, 1), shells: Uint32Array.of(1, 1), maxShell: 1 },
        },
        { date: '2024-03-01', decomposition: { ...good, shells: Uint32Array.of(1, 2) } },
      ]
      // An unreal date is an argument error; an inconsistent decomposition a RangeError.
      for (const b of bad)
        await expect(store.ingest({ ipVersion: 'ipv4', linkCount: 1, ...b })).rejects.toThrow(
          b.date === '2024-02-30' ? InvalidQueryError : RangeError,
        )
      expect(await (await store.reader()).storedDates('ipv4')).toEqual(['2024-01-01', '2024-02-01'])
    })
  })

  it('normalizes to 0 in a snapshot whose largest shell index is 0', async () => {
    await store.ingest({
      ipVersion: 'ipv6',
      date: '2001-01-01',
      decomposition: decomposition([[7, 0]]),
      linkCount: 0,
    })
    expect((await (await store.reader()).trends('ipv6', [7])).trends.get(7)).toEqual([
      { date: '2001-01-01', shell_index: 0, max_shell_index: 0, normalized_shell_index: 0 },
    ])
  })

  it('summarizes an empty store as no versions', async () => {
    expect(await (await store.reader()).summary()).toEqual({})
    expect((await (await store.reader()).trends('ipv6', [])).dateRange).toBeNull()
    expect(await (await store.reader()).snapshots('ipv6')).toEqual([])
    expect(await (await store.reader()).snapshotCount()).toBe(0)
  })
})
