import { execFileSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { testDatabases } from '@kcore/db/testing'
import { createProvider } from '@kcore/engine'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { syncFromProvider } from '../src/index.js'
import { type FaultProviderServer, snapshotFileName, startFaultProvider } from '../src/testing.js'
import { clearKcoreTables, FIXTURE, openStore, rowsOfDate, type TestStore } from './helpers.js'

/**
 * A bzip2 "bomb" of valid lines: ~1 GiB of text in a few KB, as 128 concatenated bz2 streams
 * of the same 8 MiB of repeated data lines (concatenated streams are one valid bz2 file).
 */
function bz2Bomb(): Uint8Array {
  const text = Buffer.from('1|2|-1\n3|4|0\n'.repeat((8 * 1024 * 1024) / 13))
  const stream = execFileSync('bzip2', ['-9c'], { input: text })
  return new Uint8Array(Buffer.concat(Array.from({ length: 128 }, () => stream)))
}

describe.each(testDatabases())('hostile provider on $name', ({ open }) => {
  let store: TestStore
  let server: FaultProviderServer
  const date = '2015-01-01'
  const name = snapshotFileName('ipv4', date)

  beforeAll(async () => {
    store = await openStore(open)
  })
  afterAll(async () => {
    await store?.database.close()
  })
  beforeEach(async () => {
    await clearKcoreTables(store.database)
    server = await startFaultProvider()
  })
  afterEach(async () => {
    await server?.close()
  })

  // Without a cap the body was held whole (3.3 GB RSS): the cap is the bound. What the refusal
  // costs the event loop and RSS: `pnpm bench:hostile-provider`.
  it('refuses an endless body at the download cap (default)', async () => {
    server.offer(name, new Uint8Array(await readFile(FIXTURE)))
    server.faults.set(name, 'endless')
    const provider = createProvider({ baseUrl: server.url, retries: 0, timeoutMs: 10_000 })
    const value = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
    expect(value.ipv4).toMatchObject({ checked: false, added: [] })
    expect(value.ipv4!.failures).toEqual([
      {
        date,
        error: expect.stringMatching(
          /^download refused: .* is larger than the download size cap of 67108864 bytes \(maxDownloadBytes\)$/,
        ),
      },
    ])
    expect(await rowsOfDate(store.database, 'ipv4', date)).toEqual({ snapshots: 0, shells: 0 })
  }, 120_000)

  // Decoded on the serving thread with no cap, a 128 KB bomb grew the server past 2.5 GB.
  it('refuses a bz2 bomb at the decompressed cap (default)', async () => {
    server.offer(name, bz2Bomb())
    const provider = createProvider({ baseUrl: server.url, retries: 0 })
    const value = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
    expect(value.ipv4).toMatchObject({ checked: false, added: [] })
    expect(value.ipv4!.failures).toEqual([
      {
        date,
        error: expect.stringMatching(
          /^snapshot refused: its text exceeds the decompressed size cap of 134217728 bytes \(maxDecompressedBytes\)/,
        ),
      },
    ])
    expect(await rowsOfDate(store.database, 'ipv4', date)).toEqual({ snapshots: 0, shells: 0 })
  }, 180_000)

  it('takes a smaller decompressed cap from the sync options', async () => {
    server.offer(name, new Uint8Array(await readFile(FIXTURE)))
    const provider = createProvider({ baseUrl: server.url, retries: 0 })
    const result = await syncFromProvider({
      store,
      provider,
      ipVersions: ['ipv4'],
      maxDecompressedBytes: 100,
    })
    expect(result.ipv4!.failures[0]?.error).toMatch(/decompressed size cap of 100 bytes/)
    expect(await rowsOfDate(store.database, 'ipv4', date)).toEqual({ snapshots: 0, shells: 0 })
  })
})
