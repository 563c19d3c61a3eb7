import { readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { rotatingSample, secondConnection, seedRun, testDatabases } from './testing.js'

const pglite = testDatabases({})[0]!

describe('testDatabases: PGlite from the cached empty cluster', () => {
  it('gives every open its own empty database, and keeps the template on disk', async () => {
    const a = await pglite.open()
    const b = await pglite.open()
    try {
      await sql`create table only_in_a (id int)`.execute(a.db)
      await sql`insert into only_in_a values (1)`.execute(a.db)
      const tables = async (db: typeof a.db) =>
        (
          await sql<{ n: number }>`select count(*)::int as n from pg_tables
            where schemaname = 'public'`.execute(db)
        ).rows[0]!.n
      expect(await tables(a.db)).toBe(1)
      expect(await tables(b.db)).toBe(0)
      // A third database after writes to the first still starts empty (the template is a copy).
      const c = await pglite.open()
      expect(await tables(c.db)).toBe(0)
      await c.close()
    } finally {
      await a.close()
      await b.close()
    }
    const files = await readdir(tmpdir())
    expect(files.some((f) => /^kcore-pglite-template-\d.*\.tar$/.test(f))).toBe(true)
  })
})

describe.each(testDatabases())(
  'testDatabases on $name: a database handed out again',
  ({ name, open }) => {
    it('is as empty as a new one whatever the last user left', async () => {
      const used = await open()
      await sql`create table t (id serial primary key, v text)`.execute(used.db)
      await sql`create schema other`.execute(used.db)
      await sql`create table other.u (id int)`.execute(used.db)
      await sql`create extension if not exists pg_trgm`.execute(used.db)
      await sql`create type mood as enum ('ok')`.execute(used.db)
      await sql`create function f() returns int language sql as 'select 1'`.execute(used.db)
      // Roles are a PostgreSQL server's, not a database's: only PGlite's cluster is the test's.
      if (name === 'pglite') await sql`create role leftover`.execute(used.db)
      await sql`set statement_timeout = 1234`.execute(used.db)
      await sql`select pg_advisory_lock(42)`.execute(used.db)
      await sql`listen somewhere`.execute(used.db)
      await sql`create temporary table tmp (id int)`.execute(used.db)
      // A transaction left open by a failed test.
      await sql`begin`.execute(used.db)
      await sql`insert into t (v) values ('x')`.execute(used.db)
      const nameOf = async (db: typeof used.db) =>
        (await sql<{ n: string }>`select current_database() as n`.execute(db)).rows[0]!.n
      const usedName = await nameOf(used.db)
      await used.close()

      const next = await open()
      try {
        const one = async <T>(query: ReturnType<typeof sql<T>>) =>
          (await query.execute(next.db)).rows[0]!
        expect(
          await one(sql<{ n: number }>`select count(*)::int as n from pg_class c
          join pg_namespace s on s.oid = c.relnamespace
          where s.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')`),
        ).toEqual({ n: 0 })
        expect(
          await one(sql<{ names: string }>`select string_agg(nspname, ',' order by nspname) as names
          from pg_namespace where nspname not like 'pg\_%' `),
        ).toEqual({ names: 'information_schema,public' })
        expect(
          await one(
            sql<{ names: string }>`select string_agg(extname, ',') as names from pg_extension`,
          ),
        ).toEqual({ names: 'plpgsql' })
        expect(
          await one(
            sql<{ n: number }>`select count(*)::int as n from pg_roles where rolname = 'leftover'`,
          ),
        ).toEqual({ n: 0 })
        expect(
          await one(sql<{ s: string }>`select current_setting('statement_timeout') as s`),
        ).toEqual({
          s: '0',
        })
        expect(
          await one(
            sql<{ n: number }>`select count(*)::int as n from pg_locks where locktype = 'advisory'
            and database = (select oid from pg_database where datname = current_database())`,
          ),
        ).toEqual({ n: 0 })
        expect(
          await one(sql<{ n: number }>`select count(*)::int as n from pg_listening_channels()`),
        ).toEqual({
          n: 0,
        })
        // It is the same database, emptied (PGlite: one cluster, always named postgres).
        expect(await nameOf(next.db)).toBe(usedName)
        // The new database is usable as a fresh one: the same names can be created again.
        await sql`create table t (id serial primary key)`.execute(next.db)
        await sql`create extension pg_trgm`.execute(next.db)
        expect(await one(sql<{ id: number }>`insert into t default values returning id`)).toEqual({
          id: 1,
        })
      } finally {
        await next.close()
      }
    })

    // PGlite has one connection, which a database's close takes back whatever it was doing.
    it.skipIf(name === 'pglite')(
      'keeps the connections a test left open off its successor',
      async () => {
        for (let round = 0; round < 5; round++) {
          const used = await open()
          const stray = await secondConnection(used)
          // A test that ends with a transaction open on a pool it never closed.
          void stray.db
            .transaction()
            .execute(async (trx) => {
              await sql`select 1`.execute(trx)
              await new Promise(() => {})
            })
            .catch(() => {})
          await expect
            .poll(async () => {
              const { rows } = await sql<{ n: number }>`select count(*)::int as n
              from pg_stat_activity where datname = current_database()
              and state like 'idle in transaction%'`.execute(used.db)
              return rows[0]!.n
            })
            .toBe(1)
          await used.close()
          const next = await open()
          try {
            const { rows } = await sql<{ n: number }>`select count(*)::int as n
            from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
            and state is not null`.execute(next.db)
            expect(rows[0]!.n).toBe(0)
          } finally {
            await next.close()
          }
        }
      },
    )

    it('fails queries of a closed database, and keeps them off its successor', async () => {
      const first = await open()
      const db = first.db
      await first.close()
      const second = await open()
      try {
        await expect(sql`create table stray (id int)`.execute(db)).rejects.toThrow()
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_tables
        where schemaname = 'public'`.execute(second.db)
        expect(rows[0]!.n).toBe(0)
      } finally {
        await second.close()
      }
    })
  },
)

describe('rotatingSample', () => {
  const cases = ['a', 'b', 'c', 'd', 'e', 'f']
  it('takes every case at the full level, or when asked for as many', () => {
    expect(rotatingSample('t', cases, 2, { KCORE_TEST_LEVEL: 'full' })).toEqual(cases)
    expect(rotatingSample('t', cases, 6, { KCORE_TEST_LEVEL: 'all' })).toEqual(cases)
  })
  it('picks the asked number of distinct cases, in table order, the same for the same seed', () => {
    for (let seed = 0; seed < 200; seed++) {
      const env = { KCORE_TEST_LEVEL: 'all', KCORE_TEST_SEED: String(seed) }
      const picked = rotatingSample('t', cases, 3, env)
      expect(new Set(picked).size).toBe(3)
      expect(picked).toEqual(cases.filter((c) => picked.includes(c)))
      expect(rotatingSample('t', cases, 3, env)).toEqual(picked)
    }
  })
  it('reaches every case over seeds', () => {
    const seen = new Set<string>()
    for (let seed = 0; seed < 50; seed++)
      for (const c of rotatingSample('t', cases, 1, { KCORE_TEST_SEED: String(seed) })) seen.add(c)
    expect([...seen].sort()).toEqual(cases)
  })
})

describe('seedRun', () => {
  it('gives the same consecutive seeds for a pinned KCORE_TEST_SEED, fresh ones without it', () => {
    const pinned = { KCORE_TEST_SEED: '20261207' }
    const seeds = seedRun('t', 3, pinned)
    expect(seeds).toEqual([seeds[0], seeds[0]! + 1, seeds[0]! + 2])
    expect(seedRun('t', 3, pinned)).toEqual(seeds)
    expect(seedRun('t', 3, { KCORE_TEST_SEED: '20261208' })).not.toEqual(seeds)
    const draws = new Set(Array.from({ length: 5 }, () => seedRun('t', 1, {})[0]))
    expect(draws.size).toBeGreaterThan(1)
  })
  it.each(['', ' ', 'abc', '1e3', '-1', '1.5', '0x10', '2147483648', '99999999999999999999'])(
    'refuses KCORE_TEST_SEED=%j, as rotatingSample does',
    (seed) => {
      const env = { KCORE_TEST_LEVEL: 'all', KCORE_TEST_SEED: seed }
      expect(() => seedRun('t', 1, env)).toThrow(/KCORE_TEST_SEED must be an integer/)
      expect(() => rotatingSample('t', ['a', 'b', 'c'], 1, env)).toThrow(/KCORE_TEST_SEED/)
    },
  )
  it.each(['0', '7', ' 42 ', '2147483647'])('takes KCORE_TEST_SEED=%j', (seed) => {
    expect(seedRun('t', 1, { KCORE_TEST_SEED: seed })[0]).toBe(1 + (Number(seed) % 100_000))
  })
})
