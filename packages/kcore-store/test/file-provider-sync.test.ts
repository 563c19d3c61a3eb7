import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { testDatabases } from '@kcore/db/testing'
import { createProvider } from '@kcore/engine'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { syncFromProvider } from '../src/index.js'
import {
  CAIDA_DIR as caida,
  FIXTURE as fixture,
  openStore,
  type TempDir,
  type TestStore,
  tempDir,
} from './helpers.js'

describe.each(testDatabases())('syncFromProvider with a file:// mirror on $name', ({ open }) => {
  let store: TestStore
  let dir: TempDir

  beforeAll(async () => {
    store = await openStore(open)
    dir = await tempDir('kcore-mirror-')
  })
  afterAll(async () => {
    await store?.database.close()
    await dir?.remove()
  })

  it('stores real files, reports a truncated one, and takes it once it is fixed', async () => {
    const serial1 = join(dir.path, 'serial-1')
    await mkdir(serial1)
    await copyFile(fixture, join(serial1, '20140601.as-rel.txt.bz2'))
    await copyFile(`${caida}19980101.as-rel.txt.bz2`, join(serial1, '20150101.as-rel.txt.bz2'))
    await copyFile(fixture, join(serial1, '20140101.as-rel.v6-stable.txt.bz2'))
    const bytes = await readFile(`${caida}19990201.as-rel.txt.bz2`)
    const broken = join(serial1, '20140801.as-rel.txt.bz2')
    await writeFile(broken, bytes.subarray(0, Math.floor(bytes.length / 2)))

    const provider = createProvider({ baseUrl: `${pathToFileURL(dir.path).href}/` })
    const first = await syncFromProvider({ store, provider, ipVersions: ['ipv4', 'ipv6'] })
    expect(first.ipv4).toMatchObject({
      checked: false,
      added: ['2014-06-01', '2015-01-01'],
      latestDate: '2015-01-01',
    })
    expect(first.ipv4?.failures.map((f) => f.date)).toEqual(['2014-08-01'])
    expect(first.ipv6).toMatchObject({ checked: true, added: ['2014-01-01'], error: null })
    expect(
      (await (await store.reader()).snapshots('ipv4')).map((s) => [
        s.date,
        s.unique_asns,
        s.source,
      ]),
    ).toEqual([
      ['2014-06-01', 81, '20140601.as-rel.txt.bz2'],
      ['2015-01-01', 3_233, '20150101.as-rel.txt.bz2'],
    ])

    await copyFile(`${caida}19990201.as-rel.txt.bz2`, broken)
    const second = await syncFromProvider({ store, provider, ipVersions: ['ipv4', 'ipv6'] })
    expect(second.ipv4).toEqual({
      checked: true,
      added: ['2014-08-01'],
      latestDate: '2015-01-01',
      error: null,
      failures: [],
    })
    expect(second.ipv6).toMatchObject({ checked: true, added: [] })
    expect((await (await store.reader()).snapshots('ipv4'))[1]).toMatchObject({
      date: '2014-08-01',
      unique_asns: 4_613,
    })
  })
})
