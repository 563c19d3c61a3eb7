import { testDatabases } from '@kcore/db/testing'
import { createKcoreStore } from '@kcore/store'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { KcoreStore } from '../src/index.js'
import { decomposition, openStore, secondConnection, type TestStore } from './helpers.js'

describe.each(testDatabases())('data revision on $name', ({ open }) => {
  let store: TestStore
  let other: KcoreStore
  let closeOther: () => Promise<void>

  beforeAll(async () => {
    store = await openStore(open)
    const second = await secondConnection(store.database)
    other = createKcoreStore(second)
    await other.migrate()
    closeOther = () => second.close()
  })
  afterAll(async () => {
    await closeOther()
    await store.database.close()
  })

  const snapshot = (date: string, pairs: [number, number][]) => ({
    ipVersion: 'ipv4' as const,
    date,
    decomposition: decomposition(pairs),
    linkCount: pairs.length,
  })

  it('changes with every ingest, new date or replaced, as seen from another connection', async () => {
    const seen = [(await other.reader()).revision]
    await store.ingest(
      snapshot('2020-01-01', [
        [1, 1],
        [2, 1],
      ]),
    )
    seen.push((await other.reader()).revision)
    await store.ingest(
      snapshot('2020-01-01', [
        [1, 1],
        [3, 1],
      ]),
    )
    seen.push((await other.reader()).revision)
    await other.ingest(
      snapshot('2020-02-01', [
        [1, 1],
        [2, 1],
      ]),
    )
    seen.push((await store.reader()).revision)
    expect(new Set(seen).size).toBe(seen.length)
    expect((await store.reader()).revision).toBe((await other.reader()).revision)
  })

  it('keeps the revision when an ingest fails and rolls back', async () => {
    const before = (await store.reader()).revision
    await expect(
      store.ingest({ ...snapshot('2020-03-01', [[1, 1]]), date: '2020-02-30' }),
    ).rejects.toThrow()
    expect((await other.reader()).revision).toBe(before)
  })

  it('counts every committed ingest exactly once under concurrency', async () => {
    const before = BigInt((await store.reader()).revision)
    const dates = Array.from({ length: 12 }, (_, i) => `2021-${String(i + 1).padStart(2, '0')}-01`)
    await Promise.all(
      dates.map((date, i) =>
        (i % 2 ? store : other).ingest(
          snapshot(date, [
            [1, 1],
            [2, 1],
          ]),
        ),
      ),
    )
    expect(BigInt((await store.reader()).revision) - before).toBe(BigInt(dates.length))
    const { rows } = await sql<{ n: string }>`select count(*) as n from kcore_revision`.execute(
      store.database.db,
    )
    expect(Number(rows[0]!.n)).toBe(1)
  })
})
