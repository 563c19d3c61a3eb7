import { createHash } from 'node:crypto'
import { copyFile, mkdir, readFile, utimes } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { createProvider, ENGINE_VERSION } from '@kcore/engine'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ingestFile, syncFromProvider } from '../src/index.js'
import {
  clearKcoreTables,
  decomposition,
  FIXTURE,
  openStore,
  type TempDir,
  type TestStore,
  tempDir,
} from './helpers.js'

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex')

describe.each(testDatabases())('provenance captured at ingest on $name', ({ open }) => {
  let database: Database
  let store: TestStore
  let dir: TempDir

  beforeAll(async () => {
    store = await openStore(open)
    database = store.database
    dir = await tempDir('kcore-provenance-')
  })
  afterAll(async () => {
    await database?.close()
    await dir?.remove()
  })
  beforeEach(async () => {
    await clearKcoreTables(database)
  })

  it('kcore ingest / ingestFile: SHA-256 of the bytes on disk, their mtime, serial, engine', async () => {
    const local = join(dir.path, '20140601.as-rel2.txt.bz2')
    await copyFile(FIXTURE, local)
    const mtime = new Date('2014-06-03T04:05:06.789Z')
    await utimes(local, mtime, mtime)
    await ingestFile(store, local)
    expect(await (await store.reader()).snapshot('ipv4', '2014-06-01')).toMatchObject({
      source: '20140601.as-rel2.txt.bz2',
      source_url: null,
      serial: 2,
      sha256: await sha256(FIXTURE),
      file_modified: '2014-06-03T04:05:06.789Z',
      engine_version: ENGINE_VERSION,
    })
  })

  it('provider sync: the URL fetched, its serial, the SHA-256 of the bytes as fetched, the file time', async () => {
    const serial1 = join(dir.path, 'mirror', 'serial-1')
    await mkdir(serial1, { recursive: true })
    const mirrored = join(serial1, '20140601.as-rel.txt.bz2')
    await copyFile(FIXTURE, mirrored)
    const mtime = new Date('2014-06-05T01:02:03.004Z')
    await utimes(mirrored, mtime, mtime)
    const baseUrl = `${pathToFileURL(join(dir.path, 'mirror')).href}/`
    await syncFromProvider({ store, provider: createProvider({ baseUrl }), ipVersions: ['ipv4'] })
    const record = await (await store.reader()).snapshot('ipv4', '2014-06-01')
    expect(record).toMatchObject({
      source_url: `${baseUrl}serial-1/20140601.as-rel.txt.bz2`,
      serial: 1,
      sha256: await sha256(FIXTURE),
      file_modified: '2014-06-05T01:02:03.004Z',
      engine_version: ENGINE_VERSION,
    })
  })

  it('a re-ingest replaces the provenance too; a bad SHA-256 is refused before SQL', async () => {
    const snapshot = {
      ipVersion: 'ipv4' as const,
      date: '2024-01-01',
      decomposition: decomposition([[1, 1]]),
      linkCount: 1,
      provenance: {
        sha256: 'a'.repeat(64),
        sourceUrl: 'https://example.org/x',
        engineVersion: null,
      },
    }
    await store.ingest(snapshot)
    await store.ingest({ ...snapshot, provenance: { sha256: 'b'.repeat(64) } })
    expect(await (await store.reader()).snapshot('ipv4', '2024-01-01')).toMatchObject({
      sha256: 'b'.repeat(64),
      source_url: null,
      serial: null,
      engine_version: ENGINE_VERSION,
    })
    for (const bad of ['A'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), '', 'g'.repeat(64)])
      await expect(store.ingest({ ...snapshot, provenance: { sha256: bad } })).rejects.toThrow(
        RangeError,
      )
    await expect(
      store.ingest({ ...snapshot, provenance: { fileModified: new Date(Number.NaN) } }),
    ).rejects.toThrow(RangeError)
  })
})
