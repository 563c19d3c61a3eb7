import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { openPgliteDatabase } from '../src/index.js'
import { emptyCluster } from '../src/testing.js'

describe('emptyCluster', () => {
  const temps: string[] = []
  afterAll(async () => {
    await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })))
  })

  it('gives each caller a cluster of its own that opens, takes writes and stays apart', async () => {
    const base = await mkdtemp(join(tmpdir(), 'kcore-empty-cluster-'))
    temps.push(base)
    // Two at once in one process: one template, two copies.
    const [a, b] = await Promise.all([emptyCluster(join(base, 'a')), emptyCluster(join(base, 'b'))])
    expect(await readdir(a!)).toContain('PG_VERSION')
    const first = await openPgliteDatabase(a)
    try {
      await sql`create table t (x int)`.execute(first.db)
      await sql`insert into t values (1)`.execute(first.db)
    } finally {
      await first.close()
    }
    const second = await openPgliteDatabase(b)
    try {
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_tables where tablename = 't'`.execute(second.db)
      expect(rows[0]!.n).toBe(0)
    } finally {
      await second.close()
    }
    const again = await openPgliteDatabase(a)
    try {
      const { rows } = await sql<{ x: number }>`select x from t`.execute(again.db)
      expect(rows).toEqual([{ x: 1 }])
    } finally {
      await again.close()
    }
  })

  it('refuses a directory that exists, so no data are mixed', async () => {
    const base = await mkdtemp(join(tmpdir(), 'kcore-empty-cluster-'))
    temps.push(base)
    await expect(emptyCluster(base)).rejects.toThrow()
  })
})
