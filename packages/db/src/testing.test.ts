import { readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { testDatabases } from './testing.js'

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
