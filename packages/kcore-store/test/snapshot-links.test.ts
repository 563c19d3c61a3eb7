import { copyFile, mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { testDatabases } from '@kcore/db/testing'
import { type AsGraph, coreDecomposition, createProvider, parseAsRel } from '@kcore/engine'
import { Migrator, sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  createKcoreStore,
  ingestFile,
  SnapshotLinksNotStoredError,
  SnapshotNotFoundError,
  syncFromProvider,
} from '../src/index.js'
import {
  KCORE_MIGRATION_LOCK_TABLE,
  KCORE_MIGRATION_TABLE,
  kcoreMigrationProvider,
} from '../src/migrations.js'
import { migrateKcore } from '../src/testing.js'
import {
  CAIDA_DIR,
  clearKcoreTables,
  decomposition,
  FIXTURE,
  openStore,
  type TestStore,
  tempDir,
} from './helpers.js'

const FILE_1998 = `${CAIDA_DIR}19980101.as-rel.txt.bz2`
const FILE_1999 = `${CAIDA_DIR}19990201.as-rel.txt.bz2`

/** The graph the engine parses from a file, on this thread (independent of the store). */
const parsed = async (path: string) => parseAsRel(new Uint8Array(await readFile(path)))

/** The parts of a graph two equal graphs share (plain arrays, for readable diffs). */
const shape = (graph: AsGraph) => ({
  asns: Array.from(graph.asns),
  offsets: Array.from(graph.offsets),
  neighbors: Array.from(graph.neighbors),
  linkCount: graph.linkCount,
  format: graph.format,
  metadata: graph.metadata,
})

/** Stored links rows of a version and date, with their sizes. */
async function linkRows(store: TestStore, date: string) {
  const { rows } = await sql<{ format_version: number; bytes: number }>`
    select format_version, octet_length(links)::int as bytes from kcore_snapshot_links
    where ip_version = 'ipv4' and snapshot_date = ${date}::date`.execute(store.database.db)
  return rows
}

describe.each(testDatabases())('snapshot links on $name', ({ open }) => {
  let store: TestStore

  beforeAll(async () => {
    store = await openStore(open)
  })
  afterAll(async () => {
    await store?.database.close()
  })
  beforeEach(async () => {
    await clearKcoreTables(store.database)
  })

  it('stores the links on ingest: the graph read back is the parsed file, shells its own', async () => {
    await ingestFile(store, FILE_1998)
    const {
      graph,
      decomposition: stored,
      snapshot,
    } = await (await store.reader()).snapshotGraph('ipv4', '1998-01-01')
    const expected = await parsed(FILE_1998)
    expect(shape(graph)).toEqual(shape(expected))
    const fresh = coreDecomposition(expected)
    expect(Array.from(stored.asns)).toEqual(Array.from(expected.asns))
    expect(Array.from(stored.shells)).toEqual(Array.from(fresh.shells))
    expect(stored.maxShell).toBe(fresh.maxShell)
    expect(snapshot).toMatchObject({ date: '1998-01-01', link_count: expected.linkCount })
    const [row] = await linkRows(store, '1998-01-01')
    expect(row!.format_version).toBe(1)
    expect(row!.bytes).toBeGreaterThan(0)
  })

  it('stores the links of what a provider sync stores too', async () => {
    const dir = await tempDir('kcore-links-mirror-')
    try {
      await mkdir(join(dir.path, 'serial-1'))
      await copyFile(FILE_1999, join(dir.path, 'serial-1', '19990201.as-rel.txt.bz2'))
      const provider = createProvider({ baseUrl: `${pathToFileURL(dir.path).href}/` })
      const result = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
      expect(result.ipv4?.added).toEqual(['1999-02-01'])
      const { graph } = await (await store.reader()).snapshotGraph('ipv4', '1999-02-01')
      expect(shape(graph)).toEqual(shape(await parsed(FILE_1999)))
    } finally {
      await dir.remove()
    }
  })

  it('replaces the links with their snapshot, and deletes them when a replacement has none', async () => {
    await ingestFile(store, FIXTURE, { date: '2000-01-01' })
    const first = await (await store.reader()).snapshotGraph('ipv4', '2000-01-01')
    expect(shape(first.graph)).toEqual(shape(await parsed(FIXTURE)))

    await ingestFile(store, FILE_1998, { date: '2000-01-01', allowImplausible: true })
    const second = await (await store.reader()).snapshotGraph('ipv4', '2000-01-01')
    expect(shape(second.graph)).toEqual(shape(await parsed(FILE_1998)))
    expect(second.stamp).not.toBe(first.stamp)
    expect(await linkRows(store, '2000-01-01')).toHaveLength(1)

    // A snapshot stored without links (a caller of `ingest` that has none) is another graph.
    await store.ingest({
      ipVersion: 'ipv4',
      date: '2000-01-01',
      decomposition: decomposition([
        [1, 1],
        [2, 1],
      ]),
      linkCount: 1,
    })
    expect(await linkRows(store, '2000-01-01')).toEqual([])
    await expect((await store.reader()).snapshotGraph('ipv4', '2000-01-01')).rejects.toThrow(
      SnapshotLinksNotStoredError,
    )
  })

  it('goes with its snapshot when the snapshot row is deleted (foreign key cascade)', async () => {
    await ingestFile(store, FIXTURE)
    expect(await linkRows(store, '2014-06-01')).toHaveLength(1)
    await sql`delete from kcore_snapshot where date = '2014-06-01'`.execute(store.database.db)
    expect(await linkRows(store, '2014-06-01')).toEqual([])
  })

  it('refuses links that are not encodeGraphLinks output, storing nothing', async () => {
    await expect(
      store.ingest({
        ipVersion: 'ipv4',
        date: '2000-01-01',
        decomposition: decomposition([[1, 0]]),
        linkCount: 0,
        links: new Uint8Array([1, 2, 3, 4, 5]),
      }),
    ).rejects.toThrow(RangeError)
    expect(await (await store.reader()).snapshots('ipv4')).toEqual([])
  })

  it('throws SnapshotNotFoundError for a date not stored', async () => {
    await ingestFile(store, FIXTURE)
    await expect((await store.reader()).snapshotGraph('ipv4', '2014-06-02')).rejects.toThrow(
      SnapshotNotFoundError,
    )
  })

  it('decodes again after a re-ingest of the date (the memo follows the revision)', async () => {
    await ingestFile(store, FIXTURE, { date: '2001-01-01' })
    const reader = await store.reader()
    const once = await reader.snapshotGraph('ipv4', '2001-01-01')
    // the same revision shares the decoded graph
    expect(await reader.snapshotGraph('ipv4', '2001-01-01')).toBe(once)
    await ingestFile(store, FILE_1998, { date: '2001-01-01', allowImplausible: true })
    const again = await (await store.reader()).snapshotGraph('ipv4', '2001-01-01')
    expect(shape(again.graph)).toEqual(shape(await parsed(FILE_1998)))
  })

  it('lists graphs in date order, reporting missing links and snapshots replaced meanwhile', async () => {
    await ingestFile(store, FILE_1998)
    await ingestFile(store, FILE_1999)
    await ingestFile(store, FIXTURE, { date: '2000-01-01', allowImplausible: true })
    await sql`delete from kcore_snapshot_links where snapshot_date = '1999-02-01'`.execute(
      store.database.db,
    )
    const entries = (await store.reader()).snapshotGraphs('ipv4', { start: '1998-01-01' })
    const first = await entries.next()
    expect(first.value).toMatchObject({ date: '1998-01-01', status: 'ok' })
    // Replaced after the set was read: its new content is not the listed one.
    await ingestFile(store, FILE_1998, { date: '2000-01-01', allowImplausible: true })
    const rest = []
    for await (const entry of entries) rest.push({ date: entry.date, status: entry.status })
    expect(rest).toEqual([
      { date: '1999-02-01', status: 'links_not_stored' },
      { date: '2000-01-01', status: 'replaced' },
    ])
    const all = []
    for await (const entry of (await store.reader()).snapshotGraphs('ipv4', { end: '2000-01-01' }))
      all.push([entry.date, entry.status])
    expect(all).toEqual([
      ['1998-01-01', 'ok'],
      ['1999-02-01', 'links_not_stored'],
      ['2000-01-01', 'ok'],
    ])
  })
})

describe.each(testDatabases())('a snapshot stored before migration 0010 on $name', ({ open }) => {
  it('has no links: SnapshotLinksNotStoredError until it is ingested again', async () => {
    const database = await open(migrateKcore)
    try {
      const store = createKcoreStore(database)
      await store.migrate()
      await ingestFile(store, FIXTURE)
      const migrator = new Migrator({
        db: database.db,
        provider: kcoreMigrationProvider,
        migrationTableName: KCORE_MIGRATION_TABLE,
        migrationLockTableName: KCORE_MIGRATION_LOCK_TABLE,
      })
      // Down to the layout before 0010 and up again: the snapshot is as 0009 left it.
      expect((await migrator.migrateTo('0009_as_registry')).error).toBeUndefined()
      await createKcoreStore(database).migrate()
      const after = createKcoreStore(database)
      await expect((await after.reader()).snapshotGraph('ipv4', '2014-06-01')).rejects.toThrow(
        SnapshotLinksNotStoredError,
      )
      await ingestFile(after, FIXTURE)
      const { graph } = await (await after.reader()).snapshotGraph('ipv4', '2014-06-01')
      expect(shape(graph)).toEqual(shape(await parsed(FIXTURE)))
    } finally {
      await database.close()
    }
  })
})
