import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { type CoreDecomposition, decomposeSnapshot } from '@kcore/engine'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ingestFile, SnapshotNotFoundError } from '../src/index.js'
import { CAIDA_DIR, openStore, type TestStore } from './helpers.js'

/** The engine's decomposition of a real file, as `Map<asn, shell>`: the independent answer. */
async function engineShells(file: string): Promise<{ map: Map<number, number>; max: number }> {
  const bytes = new Uint8Array(await readFile(join(CAIDA_DIR, file)))
  const { decomposition } = await decomposeSnapshot(bytes)
  return { map: toMap(decomposition), max: decomposition.maxShell }
}

function toMap(d: CoreDecomposition): Map<number, number> {
  const map = new Map<number, number>()
  for (let i = 0; i < d.asns.length; i++) map.set(d.asns[i]!, d.shells[i]!)
  return map
}

const JAN = '20130101.as-rel.txt.bz2'
const FEB = '20130201.as-rel.txt.bz2'

describe.each(testDatabases())('research queries on real CAIDA files, $name', ({ open }) => {
  let database: Database
  let store: TestStore
  let jan: { map: Map<number, number>; max: number }
  let feb: { map: Map<number, number>; max: number }

  beforeAll(async () => {
    store = await openStore(open)
    database = store.database
    await ingestFile(store, join(CAIDA_DIR, JAN))
    await ingestFile(store, join(CAIDA_DIR, FEB))
    ;[jan, feb] = await Promise.all([engineShells(JAN), engineShells(FEB)])
  }, 120_000)
  afterAll(async () => {
    await database?.close()
  })

  it('finds the 2013-02-01 innermost core: the 66-core, 158 ASes, as the engine computes it', async () => {
    const core = await (await store.reader()).core('ipv4', '2013-02-01')
    const expected = [...feb.map].filter(([, s]) => s >= feb.max).map(([a]) => a)
    expect(feb.max).toBe(66)
    expect(core).toMatchObject({ k: 66, max_shell_index: 66, count: 158, date: '2013-02-01' })
    expect(core.asns).toEqual(expected.sort((a, b) => a - b))
  })

  it('answers every k-core, including k above the maximum (empty) and k = 0 (everything)', async () => {
    for (const k of [0, 1, 2, 10, 33, 65, 66, 67, 2_147_483_647]) {
      const core = await (await store.reader()).core('ipv4', '2013-02-01', { k })
      const expected = [...feb.map].filter(([, s]) => s >= k).map(([a]) => a)
      expect(core.k).toBe(k)
      expect(core.count).toBe(expected.length)
      expect(core.asns).toEqual(expected.sort((a, b) => a - b))
    }
  })

  it('picks the top N by shell index with ties broken by ASN', async () => {
    const ranked = [...feb.map].sort((a, b) => b[1] - a[1] || a[0] - b[0])
    for (const top of [1, 100, 158, 159, 10_000]) {
      const core = await (await store.reader()).core('ipv4', '2013-02-01', { top })
      const chosen = ranked.slice(0, top)
      expect(core.count).toBe(chosen.length)
      expect(core.k).toBe(chosen.at(-1)![1])
      expect(core.asns).toEqual(chosen.map(([a]) => a).sort((a, b) => a - b))
    }
  })

  it('counts every shell: the distribution sums to the 43,560 ASes of 2013-02-01', async () => {
    const distribution = await (await store.reader()).distribution('ipv4', '2013-02-01')
    const counts = new Map<number, number>()
    for (const s of feb.map.values()) counts.set(s, (counts.get(s) ?? 0) + 1)
    expect(distribution.shells).toEqual(
      [...counts]
        .sort((a, b) => a[0] - b[0])
        .map(([shell_index, count]) => ({ shell_index, count })),
    )
    expect(distribution.shells.reduce((n, s) => n + s.count, 0)).toBe(43_560)
    expect(distribution).toMatchObject({ unique_asns: 43_560, max_shell_index: 66 })
  })

  it('streams the whole shell list in keyset pages, equal to the decomposition for every AS', async () => {
    for (const pageSize of [1_000, 7_777, 43_560, 100_000]) {
      const seen: [number, number][] = []
      for await (const page of (await store.reader()).shellPages('ipv4', '2013-02-01', {
        pageSize,
      })) {
        expect(page.asns.length).toBeLessThanOrEqual(pageSize)
        for (let i = 0; i < page.asns.length; i++) seen.push([page.asns[i]!, page.shells[i]!])
      }
      expect(seen).toEqual([...feb.map].sort((a, b) => a[0] - b[0]))
    }
    const rows = []
    for await (const row of (await store.reader()).shells('ipv4', '2013-02-01', { minShell: 60 }))
      rows.push(row)
    const expected = [...feb.map].filter(([, s]) => s >= 60).sort((a, b) => a[0] - b[0])
    expect(rows.map((r) => [r.asn, r.shell_index])).toEqual(expected)
    for (const r of rows) expect(r.normalized_shell_index).toBe(r.shell_index / 66)
  })

  it('finds movers between two real snapshots as a brute-force diff does', async () => {
    for (const k of [undefined, 1, 30]) {
      const movers = await (await store.reader()).movers('ipv4', '2013-01-01', '2013-02-01', {
        k,
        limit: 10_000,
      })
      const kk = k ?? feb.max
      expect(movers.k).toBe(kk)
      const all = new Set([...jan.map.keys(), ...feb.map.keys()])
      const entered = []
      const left = []
      for (const asn of [...all].sort((a, b) => a - b)) {
        const from = jan.map.get(asn) ?? null
        const to = feb.map.get(asn) ?? null
        const was = from !== null && from >= kk
        const is = to !== null && to >= kk
        if (is && !was) entered.push({ asn, from_shell: from, to_shell: to })
        if (was && !is) left.push({ asn, from_shell: from, to_shell: to })
      }
      expect(movers.entered).toEqual(entered)
      expect(movers.left).toEqual(left)
      const changes = [...jan.map]
        .filter(([asn]) => feb.map.has(asn))
        .map(([asn, from]) => {
          const to = feb.map.get(asn)!
          return { asn, from_shell: from, to_shell: to, change: to / feb.max - from / jan.max }
        })
      const risers = changes
        .filter((c) => c.change > 0)
        .sort((a, b) => b.change - a.change || a.asn - b.asn)
      const fallers = changes
        .filter((c) => c.change < 0)
        .sort((a, b) => a.change - b.change || a.asn - b.asn)
      expect(movers.risers).toEqual(risers.slice(0, 10_000))
      expect(movers.fallers).toEqual(fallers.slice(0, 10_000))
    }
    const limited = await (await store.reader()).movers('ipv4', '2013-01-01', '2013-02-01', {
      limit: 5,
    })
    expect(limited.risers).toHaveLength(5)
    expect(limited.fallers).toHaveLength(5)
  })

  it('gives an AS overview from both versions', async () => {
    const overview = await (await store.reader()).asnOverview(3356)
    expect(overview).toEqual({
      asn: 3356,
      ipv4: {
        first_seen: '2013-01-01',
        last_seen: '2013-02-01',
        snapshots: 2,
        latest: {
          date: '2013-02-01',
          shell_index: feb.map.get(3356),
          max_shell_index: 66,
          normalized_shell_index: feb.map.get(3356)! / 66,
        },
      },
      ipv6: null,
      // No AS registry imported.
      name: null,
      address_space: null,
      registry: null,
    })
  })

  it('records provenance: file name, serial 1, engine version; no URL for a local file', async () => {
    const record = await (await store.reader()).snapshot('ipv4', '2013-02-01')
    expect(record).toMatchObject({
      date: '2013-02-01',
      max_shell_index: 66,
      unique_asns: 43_560,
      source: FEB,
      serial: 1,
      source_url: null,
    })
    expect(record.engine_version).toMatch(/^\d+\.\d+\.\d+/)
    await expect((await store.reader()).snapshot('ipv4', '2013-03-01')).rejects.toThrow(
      SnapshotNotFoundError,
    )
  })
})
