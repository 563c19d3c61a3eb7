import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProvider, ProviderError, parseAsRel } from '../src/index.js'
import { caidaDir } from './caida-data.js'

const fixture = new URL('./fixtures/20140601.as-rel.txt.bz2', import.meta.url)
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kcore-engine-mirror-'))
  await mkdir(join(dir, 'serial-1'))
  await mkdir(join(dir, 'serial-2'))
  for (const name of [
    '20140601.as-rel.txt.bz2',
    '20130201.as-rel.txt.bz2',
    '20220601.as-rel.v6-stable.txt.bz2',
  ]) {
    await copyFile(fixture, join(dir, 'serial-1', name))
  }
  await writeFile(join(dir, 'serial-1', 'README.txt'), 'not a snapshot')
  await copyFile(fixture, join(dir, 'serial-2', '20151201.as-rel2.txt.bz2'))
  await copyFile(fixture, join(dir, 'serial-2', '20130201.as-rel2.txt.bz2'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('file:// provider', () => {
  it('lists and opens snapshots from the serial-1 layout', async () => {
    const provider = createProvider({ baseUrl: pathToFileURL(dir).href })
    const ipv4 = await provider.list('ipv4')
    expect(ipv4.map((r) => [r.date, r.fileName])).toEqual([
      ['2013-02-01', '20130201.as-rel.txt.bz2'],
      ['2014-06-01', '20140601.as-rel.txt.bz2'],
    ])
    expect(ipv4[0]!.url).toBe(pathToFileURL(join(dir, 'serial-1', '20130201.as-rel.txt.bz2')).href)
    expect((await provider.list('ipv6')).map((r) => r.date)).toEqual(['2022-06-01'])
    const graph = await parseAsRel(await provider.open(ipv4[1]!))
    expect(graph.asns.length).toBe(81)
  })

  it('adds serial-2 when asked', async () => {
    const provider = createProvider({ baseUrl: `${pathToFileURL(dir).href}/`, serial2: true })
    expect((await provider.list('ipv4')).map((r) => [r.date, r.serial])).toEqual([
      ['2013-02-01', 1],
      ['2014-06-01', 1],
      ['2015-12-01', 2],
    ])
  })

  it('reads a flat folder (no serial-1/) such as the shared CAIDA data', async () => {
    const provider = createProvider({ baseUrl: pathToFileURL(caidaDir).href })
    const ipv4 = await provider.list('ipv4')
    expect(ipv4.length).toBeGreaterThanOrEqual(35)
    expect(ipv4[0]!.date).toBe('1998-01-01')
    expect(ipv4.every((r) => r.serial === 1)).toBe(true)
    expect((await provider.list('ipv6')).map((r) => r.date)).toEqual(['2022-06-01'])
  })

  it('gives ProviderError for a missing folder or file, and honours abort', async () => {
    const missing = createProvider({ baseUrl: pathToFileURL(join(dir, 'nope')).href })
    const error = await missing.list('ipv4').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as ProviderError).url).toBe(`${pathToFileURL(join(dir, 'nope')).href}/`)

    const provider = createProvider({ baseUrl: pathToFileURL(dir).href })
    const [ref] = await provider.list('ipv4')
    const gone = { ...ref!, url: pathToFileURL(join(dir, 'serial-1', 'gone.bz2')).href }
    await expect(provider.open(gone)).rejects.toBeInstanceOf(ProviderError)
    await expect(
      provider.open(ref!, { signal: AbortSignal.abort(new Error('aborted')) }),
    ).rejects.toThrow('aborted')
  })
})

describe('file:// provider download cap', () => {
  it('refuses a file larger than maxDownloadBytes before reading it', async () => {
    const provider = createProvider({ baseUrl: pathToFileURL(dir).href, maxDownloadBytes: 10 })
    const [ref] = await provider.list('ipv4')
    await expect(provider.open(ref!)).rejects.toThrow(
      /^download refused: .* is larger than the download size cap of 10 bytes \(maxDownloadBytes\)$/,
    )
    await expect(provider.download!(ref!)).rejects.toBeInstanceOf(ProviderError)
  })
})
