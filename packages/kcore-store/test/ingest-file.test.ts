import { copyFile } from 'node:fs/promises'
import { join } from 'node:path'
import { testDatabases } from '@kcore/db/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { InvalidQueryError, ingestFile } from '../src/index.js'
import {
  CAIDA_DIR as caida,
  clearKcoreTables,
  FIXTURE as fixture,
  openStore,
  type TempDir,
  type TestStore,
  tempDir,
} from './helpers.js'

describe.each(testDatabases())('ingestFile on $name', ({ open }) => {
  let store: TestStore
  let dir: TempDir

  beforeAll(async () => {
    store = await openStore(open)
    dir = await tempDir('kcore-store-')
  })
  afterAll(async () => {
    await store?.database.close()
    await dir?.remove()
  })
  beforeEach(async () => {
    await clearKcoreTables(store.database)
  })

  it('takes the IP version and date from the CAIDA file name', async () => {
    const info = await ingestFile(store, fixture)
    expect(info).toEqual({
      ipVersion: 'ipv4',
      date: '2014-06-01',
      asns: 81,
      maxShell: expect.any(Number),
    })
    const [snapshot] = await (await store.reader()).snapshots('ipv4')
    expect(snapshot).toMatchObject({
      date: '2014-06-01',
      unique_asns: 81,
      link_count: 71,
      max_shell_index: info.maxShell,
      source: '20140601.as-rel.txt.bz2',
    })
  })

  it('stores the real 2013-02-01 snapshot with its known max shell index', async () => {
    const info = await ingestFile(store, `${caida}20130201.as-rel.txt.bz2`)
    expect(info).toEqual({ ipVersion: 'ipv4', date: '2013-02-01', asns: 43_560, maxShell: 66 })
    expect(await (await store.reader()).summary()).toEqual({
      ipv4: {
        snapshot_count: 1,
        date_range: ['2013-02-01', '2013-02-01'],
        total_asns: 43_560,
        max_shell_index: 66,
      },
    })
    const top = (await (await store.reader()).trends('ipv4', [3356])).trends.get(3356)
    expect(top).toEqual([
      { date: '2013-02-01', shell_index: 66, max_shell_index: 66, normalized_shell_index: 1 },
    ])
  })

  it('uses the given version and date over the file name, and replaces on re-ingest', async () => {
    await ingestFile(store, fixture)
    const info = await ingestFile(store, fixture, { ipVersion: 'ipv6', date: '2014-07-01' })
    expect(info).toMatchObject({ ipVersion: 'ipv6', date: '2014-07-01', asns: 81 })
    await ingestFile(store, fixture)
    expect(await (await store.reader()).storedDates('ipv4')).toEqual(['2014-06-01'])
    expect(await (await store.reader()).storedDates('ipv6')).toEqual(['2014-07-01'])
    expect((await (await store.reader()).summary()).ipv4).toMatchObject({
      snapshot_count: 1,
      total_asns: 81,
    })
  })

  it('says clearly when the name tells neither version nor date', async () => {
    const odd = join(dir.path, 'snapshot.bz2')
    await copyFile(fixture, odd)
    await expect(ingestFile(store, odd)).rejects.toThrow(
      /cannot tell the IP version and date of .*snapshot\.bz2/,
    )
    await expect(ingestFile(store, odd, { ipVersion: 'ipv4' })).rejects.toThrow(
      /cannot tell the date/,
    )
    const info = await ingestFile(store, odd, { ipVersion: 'ipv4', date: '2014-06-01' })
    expect(info.asns).toBe(81)
    expect((await (await store.reader()).snapshots('ipv4'))[0]?.source).toBe('snapshot.bz2')
  })

  it('rejects an unreal date and a missing file without storing anything', async () => {
    await expect(ingestFile(store, fixture, { date: '2014-06-31' })).rejects.toThrow(
      InvalidQueryError,
    )
    await expect(ingestFile(store, join(dir.path, '20240101.as-rel.txt.bz2'))).rejects.toThrow(
      /ENOENT/,
    )
    expect(await (await store.reader()).snapshotCount()).toBe(0)
  })
})
