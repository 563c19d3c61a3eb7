import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { testDatabases } from '@kcore/db/testing'
import { createProvider, type IpVersion } from '@kcore/engine'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ImplausibleSnapshotError, ingestFile, syncFromProvider } from '../src/index.js'
import { startFaultProvider } from '../src/testing.js'
import { cliqueSnapshot, FakeProvider } from './fake-provider.js'
import {
  clearKcoreTables,
  countKnownAsns,
  openStore,
  rowsOfDate,
  type TempDir,
  type TestStore,
  tempDir,
} from './helpers.js'

/** as-rel text with the given lines and nothing that parses to a link. */
const NO_DATA: Record<string, string> = {
  empty: '',
  'only a newline': '\n',
  'comments only': '# source:topology|BGP|20050101\n# input clique: 174 3356\n# IXP ASes: 9999\n',
}

describe.each(testDatabases())('snapshots that must not be stored, on $name', ({ open }) => {
  let store: TestStore
  let dir: TempDir

  beforeAll(async () => {
    store = await openStore(open)
    dir = await tempDir('kcore-validation-')
  })
  afterAll(async () => {
    await store?.database.close()
    await dir?.remove()
  })
  beforeEach(async () => {
    await clearKcoreTables(store.database)
  })

  async function expectNothingOf(ipVersion: IpVersion, date: string): Promise<void> {
    expect(await rowsOfDate(store.database, ipVersion, date)).toEqual({ snapshots: 0, shells: 0 })
  }

  it.each(Object.entries(NO_DATA))(
    'refresh fails the date of a file with no data line (%s) and takes it once fixed',
    async (_, content) => {
      const provider = new FakeProvider()
        .offer('ipv4', '2005-01-01', content)
        .offer('ipv4', '2005-02-01', cliqueSnapshot(4))
      const first = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
      expect(first.ipv4).toEqual({
        checked: false,
        added: ['2005-02-01'],
        latestDate: '2005-02-01',
        error:
          '1 of 2 ipv4 snapshots failed (2005-01-01: 20050101.as-rel.txt.bz2 holds no data line ' +
          '(0 ASes, 0 links); not stored)',
        failures: [
          {
            date: '2005-01-01',
            error: '20050101.as-rel.txt.bz2 holds no data line (0 ASes, 0 links); not stored',
          },
        ],
      })
      await expectNothingOf('ipv4', '2005-01-01')
      // the date is not remembered as done: the next run fetches it again
      const again = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
      expect(again.ipv4).toMatchObject({ checked: false, added: [] })
      expect(provider.opened.filter((o) => o === 'ipv4 2005-01-01')).toHaveLength(2)

      provider.offer('ipv4', '2005-01-01', cliqueSnapshot(4))
      const fixed = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
      expect(fixed.ipv4).toEqual({
        checked: true,
        added: ['2005-01-01'],
        latestDate: '2005-02-01',
        error: null,
        failures: [],
      })
      expect(await (await store.reader()).snapshots('ipv4')).toMatchObject([
        { date: '2005-01-01', unique_asns: 5, link_count: 7 },
        { date: '2005-02-01', unique_asns: 5, link_count: 7 },
      ])
    },
  )

  it('refuses a snapshot under 25% of its stored neighbours, at the boundary, and takes it once fixed', async () => {
    // neighbours with 21 ASes each (a 20-clique plus one); 5 ASes is under 25% of 21, 6 is not
    const provider = new FakeProvider()
      .offer('ipv4', '2024-06-01', cliqueSnapshot(20))
      .offer('ipv4', '2024-08-01', cliqueSnapshot(20))
    await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
    provider
      .offer('ipv4', '2024-07-01', cliqueSnapshot(4))
      .offer('ipv4', '2024-09-01', cliqueSnapshot(4))
    const first = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
    expect(first.ipv4).toMatchObject({ checked: false, added: [] })
    expect(first.ipv4!.failures).toEqual([
      {
        date: '2024-07-01',
        error:
          "20240701.as-rel.txt.bz2 has 5 ASes, under 25% of its stored neighbours' " +
          '(2024-06-01: 21, 2024-08-01: 21); not stored',
      },
      {
        date: '2024-09-01',
        error:
          "20240901.as-rel.txt.bz2 has 5 ASes, under 25% of its stored neighbours' " +
          '(2024-08-01: 21); not stored',
      },
    ])
    await expectNothingOf('ipv4', '2024-07-01')
    await expectNothingOf('ipv4', '2024-09-01')
    expect(await countKnownAsns(store.database, 'ipv4')).toBe(21)

    provider
      .offer('ipv4', '2024-07-01', cliqueSnapshot(5))
      .offer('ipv4', '2024-09-01', cliqueSnapshot(19))
    const fixed = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
    expect(fixed.ipv4).toMatchObject({ checked: true, added: ['2024-07-01', '2024-09-01'] })
  })

  it('compares each version with its own neighbours only', async () => {
    const provider = new FakeProvider()
      .offer('ipv4', '2024-01-01', cliqueSnapshot(40))
      .offer('ipv6', '2024-01-01', cliqueSnapshot(2))
      .offer('ipv6', '2024-02-01', cliqueSnapshot(2))
    const result = await syncFromProvider({ store, provider, ipVersions: ['ipv4', 'ipv6'] })
    expect(result.ipv6).toMatchObject({ checked: true, added: ['2024-01-01', '2024-02-01'] })
  })

  it('refresh over HTTP: an empty 200 body is a failed date, retried and stored once served', async () => {
    const server = await startFaultProvider()
    try {
      const name = '20050101.as-rel.txt.bz2'
      server.offer(name, new Uint8Array(0))
      const provider = createProvider({ baseUrl: server.url, retries: 0, timeoutMs: 10_000 })
      const first = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
      expect(first.ipv4).toMatchObject({
        checked: false,
        added: [],
        latestDate: null,
        failures: [
          { date: '2005-01-01', error: `${name} holds no data line (0 ASes, 0 links); not stored` },
        ],
      })
      await expectNothingOf('ipv4', '2005-01-01')
      // a valid compressed stream of nothing (the parser reads gzip by its magic too) fails the same way
      server.offer(name, gzipSync(new Uint8Array(0)))
      const second = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
      expect(second.ipv4!.failures).toEqual([
        { date: '2005-01-01', error: `${name} holds no data line (0 ASes, 0 links); not stored` },
      ])
      server.offer(name, gzipSync(cliqueSnapshot(3)))
      const third = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
      expect(third.ipv4).toMatchObject({ checked: true, added: ['2005-01-01'] })
    } finally {
      await server.close()
    }
  })

  it('kcore ingest of an explicit file: no data is refused always, a small file unless allowed', async () => {
    const path = (name: string) => join(dir.path, name)
    await writeFile(path('20240601.as-rel.txt'), cliqueSnapshot(20))
    await ingestFile(store, path('20240601.as-rel.txt'))

    for (const content of Object.values(NO_DATA)) {
      await writeFile(path('20240701.as-rel.txt'), content)
      for (const allowImplausible of [false, true])
        await expect(
          ingestFile(store, path('20240701.as-rel.txt'), { allowImplausible }),
        ).rejects.toThrow(
          new ImplausibleSnapshotError(
            '20240701.as-rel.txt holds no data line (0 ASes, 0 links); not stored',
          ),
        )
    }
    await writeFile(path('20240701.as-rel.txt'), cliqueSnapshot(2))
    await expect(ingestFile(store, path('20240701.as-rel.txt'))).rejects.toThrow(
      "20240701.as-rel.txt has 3 ASes, under 25% of its stored neighbours' (2024-06-01: 21); not stored",
    )
    await expectNothingOf('ipv4', '2024-07-01')
    // replacing a stored date compares with the other dates, not with the date's own old version
    await expect(ingestFile(store, path('20240601.as-rel.txt'))).resolves.toMatchObject({
      asns: 21,
    })

    const info = await ingestFile(store, path('20240701.as-rel.txt'), { allowImplausible: true })
    expect(info).toMatchObject({ date: '2024-07-01', asns: 3 })
    expect(await (await store.reader()).storedDates('ipv4')).toEqual(['2024-06-01', '2024-07-01'])
  })
})
