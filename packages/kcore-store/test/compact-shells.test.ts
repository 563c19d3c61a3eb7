import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { migrateToLatest } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { type CoreDecomposition, decomposeSnapshot, type IpVersion } from '@kcore/engine'
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
import { normalizedShell } from '../src/normalized-shell.js'
import { decodeShells, encodeShells, MAX_STORED_SHELL, shellWidth } from '../src/shell-blobs.js'
import { migrateKcore } from '../src/testing.js'
import { CAIDA_DIR, countKnownAsns, EXAMPLES_DIR, FIXTURE, storedShells } from './helpers.js'

const MAX_ASN = 2 ** 32 - 1

describe('the compact form of a snapshot', () => {
  // Biased to the edges: ASNs 0, 1 and 2^32-1, shell indices 0, 1 and the largest of each width.
  const asn = fc.oneof(
    fc.constantFrom(0, 1, 2, MAX_ASN - 1, MAX_ASN, 0xffff, 0x10000),
    fc.integer({ min: 0, max: MAX_ASN }),
  )
  const shell = fc.oneof(
    fc.constantFrom(0, 1, 0xff, 0x100, 0xffff, 0x10000, MAX_STORED_SHELL),
    fc.integer({ min: 0, max: 300 }),
  )
  const pairs = fc.uniqueArray(fc.tuple(asn, shell), {
    selector: ([a]) => a,
    maxLength: 300,
  })

  it('round-trips any (asn, shell) set, in any order, ascending by ASN', () => {
    fc.assert(
      fc.property(pairs, (list) => {
        const blobs = encodeShells(
          list.map(([a]) => a),
          list.map(([, s]) => s),
        )
        const max = list.reduce((m, [, s]) => Math.max(m, s), 0)
        expect(blobs.asns.length).toBe(list.length * 4)
        expect(blobs.shells.length).toBe(list.length * shellWidth(max))
        // Through a buffer at an odd offset, as a driver may hand a bytea back.
        const odd = (bytes: Uint8Array) => {
          const copy = new Uint8Array(bytes.length + 1)
          copy.set(bytes, 1)
          return copy.subarray(1)
        }
        const decoded = decodeShells({ asns: odd(blobs.asns), shells: odd(blobs.shells) })
        const sorted = [...list].sort((x, y) => x[0] - y[0])
        expect(Array.from(decoded.asns)).toEqual(sorted.map(([a]) => a))
        expect(Array.from(decoded.shells)).toEqual(sorted.map(([, s]) => s))
      }),
      { numRuns: 300, verbose: true },
    )
  })

  it('stores ASNs as uint32 little-endian and shells in the narrowest width', () => {
    const blobs = encodeShells([MAX_ASN, 0, 1], [1, 0, 256])
    expect(Array.from(blobs.asns)).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 255, 255, 255, 255])
    expect(Array.from(blobs.shells)).toEqual([0, 0, 0, 1, 1, 0])
    expect(shellWidth(255)).toBe(1)
    expect(shellWidth(65_535)).toBe(2)
    expect(shellWidth(65_536)).toBe(4)
  })

  it('refuses blobs that no encoding made', () => {
    expect(() => decodeShells({ asns: new Uint8Array(5), shells: new Uint8Array(1) })).toThrow(
      RangeError,
    )
    expect(() => decodeShells({ asns: new Uint8Array(8), shells: new Uint8Array(3) })).toThrow(
      RangeError,
    )
    expect(() => decodeShells({ asns: new Uint8Array(0), shells: new Uint8Array(2) })).toThrow(
      RangeError,
    )
  })
})

/** Three real files: two IPv4 months and an IPv6 one (the engine's answer is the expected one). */
const FILES: { ipVersion: IpVersion; date: string; path: string }[] = [
  { ipVersion: 'ipv4', date: '2013-01-01', path: join(CAIDA_DIR, '20130101.as-rel.txt.bz2') },
  { ipVersion: 'ipv4', date: '2013-02-01', path: join(CAIDA_DIR, '20130201.as-rel.txt.bz2') },
  {
    ipVersion: 'ipv6',
    date: '2022-06-01',
    path: join(EXAMPLES_DIR, '20220601.as-rel.v6-stable.txt.bz2'),
  },
]

/** `asn → shell` of a decomposition. */
function shellMap(d: CoreDecomposition): Map<number, number> {
  return new Map(Array.from(d.asns, (asn, i) => [asn, d.shells[i]!]))
}

/** The 0001–0004 migrations only: the layout with one row per AS and snapshot. */
const OLD = Object.fromEntries(
  Object.entries(migrations).filter(([id]) => id < '0005'),
) as typeof migrations

describe.each(testDatabases())('migration 0005 on $name', ({ open }) => {
  it('turns a 0004 database of real snapshots into blobs, every answer as the engine computes it', async () => {
    const database = await open()
    try {
      await migrateToLatest(
        database.db,
        {
          provider: { getMigrations: async () => OLD },
          table: KCORE_MIGRATION_TABLE,
          lockTable: KCORE_MIGRATION_LOCK_TABLE,
        },
        (message) => new Error(message),
      )
      // The fixture database, written as the 0004 ingest wrote it: rows per AS.
      const expected = new Map<string, CoreDecomposition>()
      for (const file of FILES) {
        const { decomposition, graph } = await decomposeSnapshot(
          new Uint8Array(await readFile(file.path)),
        )
        expected.set(`${file.ipVersion}|${file.date}`, decomposition)
        await sql`insert into kcore_snapshot (ip_version, date, max_shell_index, unique_asns,
            link_count, source)
          values (${file.ipVersion}, ${file.date}::date, ${decomposition.maxShell},
            ${decomposition.asns.length}, ${graph.linkCount}, ${file.path})`.execute(database.db)
        await sql`insert into ${sql.table(`kcore_shell_${file.ipVersion}`)} (asn, date, shell_index)
          select a, ${file.date}::date, s from unnest(${`{${decomposition.asns.join(',')}}`}::bigint[],
            ${`{${decomposition.shells.join(',')}}`}::int[]) as t(a, s)`.execute(database.db)
        await sql`insert into ${sql.table(`kcore_asn_${file.ipVersion}`)} (asn)
          select unnest(${`{${decomposition.asns.join(',')}}`}::bigint[])
          on conflict do nothing`.execute(database.db)
      }

      const store = createKcoreStore(database)
      await store.migrate()
      const { rows: tables } = await sql<{ name: string }>`select table_name as name
        from information_schema.tables where table_schema = 'public'
          and table_name like 'kcore_%' order by 1`.execute(database.db)
      expect(tables.map((t) => t.name)).not.toContain('kcore_shell_ipv4')
      expect(tables.map((t) => t.name)).not.toContain('kcore_asn_ipv6')

      const reader = await store.reader()
      const union4 = new Set<number>()
      for (const file of FILES) {
        const d = expected.get(`${file.ipVersion}|${file.date}`)!
        const shells = shellMap(d)
        if (file.ipVersion === 'ipv4') for (const asn of d.asns) union4.add(asn)
        // The blob, decoded, is the decomposition sorted by ASN.
        const pairs = [...shells].sort((a, b) => a[0] - b[0])
        expect(await storedShells(database, file.ipVersion, file.date)).toEqual(pairs)
        // Distribution: a count per shell of the engine's answer.
        const counts = new Map<number, number>()
        for (const s of shells.values()) counts.set(s, (counts.get(s) ?? 0) + 1)
        expect((await reader.distribution(file.ipVersion, file.date)).shells).toEqual(
          [...counts]
            .sort((a, b) => a[0] - b[0])
            .map(([shell_index, count]) => ({ shell_index, count })),
        )
        // Innermost core and a top 50 (ties by ASN).
        const core = await reader.core(file.ipVersion, file.date)
        expect(core.asns).toEqual(pairs.filter(([, s]) => s === d.maxShell).map(([a]) => a))
        const top = [...pairs].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 50)
        const topAnswer = await reader.core(file.ipVersion, file.date, { top: 50 })
        expect(topAnswer.asns).toEqual(top.map(([a]) => a).sort((a, b) => a - b))
        expect(topAnswer.k).toBe(top.at(-1)![1])
        // Shell pages, all of them.
        const listed: [number, number][] = []
        for await (const page of reader.shellPages(file.ipVersion, file.date, { pageSize: 7_777 }))
          for (let i = 0; i < page.asns.length; i++) listed.push([page.asns[i]!, page.shells[i]!])
        expect(listed).toEqual(pairs)
      }
      expect(await countKnownAsns(database, 'ipv4')).toBe(union4.size)
      expect((await reader.summary()).ipv4?.total_asns).toBe(union4.size)

      // Trends of a sample of ASNs (present in one, both or neither month), from the read
      // model and from the blobs without it.
      const jan = shellMap(expected.get('ipv4|2013-01-01')!)
      const feb = shellMap(expected.get('ipv4|2013-02-01')!)
      const sample = [...union4].filter((_, i) => i % 97 === 0).concat([0, 1, MAX_ASN])
      const maxJan = expected.get('ipv4|2013-01-01')!.maxShell
      const maxFeb = expected.get('ipv4|2013-02-01')!.maxShell
      const plain = createKcoreStore(database, { trendReadModel: false })
      for (const answer of [
        await reader.trends('ipv4', sample),
        await (await plain.reader()).trends('ipv4', sample),
      ]) {
        for (const asn of sample) {
          const points = []
          for (const [date, month, max] of [
            ['2013-01-01', jan, maxJan],
            ['2013-02-01', feb, maxFeb],
          ] as const) {
            const shell = month.get(asn)
            if (shell !== undefined)
              points.push({
                date,
                shell_index: shell,
                max_shell_index: max,
                normalized_shell_index: normalizedShell(shell, max),
              })
          }
          expect(answer.trends.get(asn)).toEqual(points)
          expect(answer.known.has(asn)).toBe(points.length > 0)
        }
      }
    } finally {
      await database.close()
    }
  }, 180_000)

  it('goes back down to the row tables with every (asn, shell) pair', async () => {
    const database = await open(migrateKcore)
    try {
      const store = createKcoreStore(database)
      await store.migrate()
      const { decomposition } = await decomposeSnapshot(new Uint8Array(await readFile(FIXTURE)))
      await store.ingest({ ipVersion: 'ipv4', date: '2014-06-01', decomposition, linkCount: 1 })
      const migrator = new Migrator({
        db: database.db,
        provider: kcoreMigrationProvider,
        migrationTableName: KCORE_MIGRATION_TABLE,
        migrationLockTableName: KCORE_MIGRATION_LOCK_TABLE,
      })
      const { error } = await migrator.migrateTo('0004_revision_notify')
      expect(error).toBeUndefined()
      const { rows } = await sql<{ asn: string | number; shell_index: number }>`
        select asn, shell_index from kcore_shell_ipv4 where date = '2014-06-01'
        order by asn`.execute(database.db)
      expect(rows.map((r) => [Number(r.asn), r.shell_index])).toEqual(
        [...shellMap(decomposition)].sort((a, b) => a[0] - b[0]),
      )
      const { rows: known } = await sql<{ n: number }>`
        select count(*)::int as n from kcore_asn_ipv4`.execute(database.db)
      expect(known[0]!.n).toBe(decomposition.asns.length)
    } finally {
      await database.close()
    }
  })
})
