import { readFile, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Database } from '@kcore/db'
import { secondConnection, testDatabases } from '@kcore/db/testing'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  AsnNotFoundError,
  AsRegistryOutdatedError,
  createKcoreStore,
  InvalidQueryError,
  importAsRegistry,
  type KcoreStore,
  RegistryFileError,
} from '../src/index.js'
import { migrateKcore } from '../src/testing.js'
import { decomposition, type TempDir, tempDir } from './helpers.js'

// The AS registry: imported from real rows of @ip-location-db/asn (test/fixtures/as-registry,
// CC BY 4.0, see its NOTICE.md), replaced whole by a newer import, never by a broken, empty or
// older one; names found case- and accent-insensitively, best match first.

const FIXTURES = fileURLToPath(new URL('./fixtures/as-registry/', import.meta.url))
const V4 = join(FIXTURES, 'asn-ipv4.csv')
const V6 = join(FIXTURES, 'asn-ipv6.csv')

describe.each(testDatabases())('the AS registry on $name', ({ open }) => {
  let database: Database
  let store: KcoreStore
  let dir: TempDir

  beforeAll(async () => {
    database = await open(migrateKcore)
    store = createKcoreStore(database)
    await store.migrate()
    dir = await tempDir('kcore-registry-')
  })
  afterAll(async () => {
    await database?.close()
    await dir?.remove()
  })

  /** A file of `text` (or bytes) in the test's folder. */
  async function file(name: string, text: string | Uint8Array) {
    const path = join(dir.path, name)
    await writeFile(path, text)
    return path
  }

  const entryCount = async () =>
    (await sql<{ n: number }>`select count(*)::int as n from kcore_as_entry`.execute(database.db))
      .rows[0]!.n

  it('imports the real rows: names, address space, source and date, a new revision', async () => {
    const before = (await store.reader()).revision
    const info = await importAsRegistry(store, [V4, V6], { date: '2026-06-17' })
    expect(info).toEqual({ source: 'asn-ipv4.csv, asn-ipv6.csv', date: '2026-06-17', asn_count: 9 })
    const reader = await store.reader()
    expect(reader.revision).not.toBe(before)
    expect(await reader.asRegistry()).toEqual(info)
    // In the registry, in no snapshot: both versions null, not a 404.
    expect(await reader.asnOverview(13335)).toEqual({
      asn: 13335,
      ipv4: null,
      ipv6: null,
      name: 'Cloudflare, Inc.',
      address_space: {
        // 1.0.0.0/24, 1.1.1.0/24, 5.10.214.0/23, 5.83.149.0/24; three /48s.
        ipv4: { addresses: 1280, slash24s: 5, prefixes: 4 },
        ipv6: { slash48s: 3, prefixes: 3 },
      },
      registry: { source: 'asn-ipv4.csv, asn-ipv6.csv', date: '2026-06-17' },
    })
    expect((await reader.asnOverview(267578)).name).toBe('WILLIAN MENDES DE OLIVEIRA \u00ad ME')
    // Trend data, no registry row: name null; in neither: 404 as before.
    await store.ingest({
      ipVersion: 'ipv4',
      date: '2024-01-01',
      decomposition: decomposition([
        [64500, 2],
        [3356, 5],
      ]),
      linkCount: 1,
    })
    const after = await store.reader()
    expect(await after.asnOverview(64500)).toMatchObject({ name: null, address_space: null })
    expect((await after.asnOverview(3356)).name).toBe('Level 3 Communications, Inc.')
    await expect(after.asnOverview(64501)).rejects.toThrow(AsnNotFoundError)
  })

  it('finds names by prefix, word and substring, and ASNs by number, best first', async () => {
    await importAsRegistry(store, [V4, V6], { date: '2026-06-17' })
    const reader = await store.reader()
    const names = async (query: string, limit?: number) =>
      (await reader.searchAses(query, { limit })).map((m) => m.asn)
    expect(await names('cloud')).toEqual([13335])
    expect(await names('CLOUDFLARE, INC.')).toEqual([13335])
    expect(await names('AS13335')).toEqual([13335])
    expect(await names(' as 13335 ')).toEqual([13335])
    expect(await names('13335')).toEqual([13335])
    // A word starting with it (WEBFIBER TELECOMUNICACAO) before inside a word (Gtelecom).
    expect(await names('tele')).toEqual([268421, 38803])
    expect(await names('gtel')).toEqual([38803])
    expect(await names('communications')).toEqual([174, 3356])
    expect(await names('communications', 1)).toEqual([174])
    expect(await names('télécom')).toEqual([268421, 38803])
    // Every word, in any order, after the substring matches.
    expect(await names('communications level')).toEqual([3356])
    expect(await names('e')).toHaveLength(9)
    for (const nothing of ['%', '_', '.*', '\\', 'zzz', '4294967295'])
      expect(await names(nothing)).toEqual([])
    for (const [query, limit] of [
      ['', 20],
      ['   ', 20],
      ['x'.repeat(10_000), 20],
      ['cloud', 0],
      ['cloud', -1],
      ['cloud', 1001],
      ['cloud', 1.5],
    ] as const)
      await expect(reader.searchAses(query, { limit }), `${query.length} ${limit}`).rejects.toThrow(
        InvalidQueryError,
      )
    expect(await names('e', 1000)).toHaveLength(9)
  })

  it('keeps the stored registry when an import is empty, truncated, malformed or older', async () => {
    await importAsRegistry(store, [V4, V6], { date: '2026-06-17' })
    const kept = await entryCount()
    const text = await readFile(V4, 'utf8')
    const bad = [
      await file('empty.csv', ''),
      await file('header-only.csv', 'ip_range_start,ip_range_end,asn,organisation\n'),
      await file('truncated.csv', `${text}9.9.9.0,9.9.9.255,9,"Cut off`),
      await file('short-row.csv', `${text}9.9.9.0,9.9.9.255\n`),
      await file('bad-asn.csv', `${text}9.9.9.0,9.9.9.255,AS9,Nine\n`),
    ]
    for (const path of bad)
      await expect(importAsRegistry(store, [path])).rejects.toThrow(RegistryFileError)
    await expect(importAsRegistry(store, [V4], { date: '2026-06-16' })).rejects.toThrow(
      AsRegistryOutdatedError,
    )
    await expect(importAsRegistry(store, [])).rejects.toThrow(RangeError)
    expect(await entryCount()).toBe(kept)
    expect((await (await store.reader()).asRegistry())?.date).toBe('2026-06-17')
  })

  it('reads BOM, CRLF, Latin-1, a header and ten times the rows as the same registry', async () => {
    await importAsRegistry(store, [V4, V6], { date: '2026-06-17' })
    const want = await (await store.reader()).asnOverview(3356)
    const text = await readFile(V4, 'utf8')
    const crlf = `ip_range_start,ip_range_end,asn,organisation\r\n${text.replaceAll('\n', '\r\n')}`
    const bom = await file('bom-ipv4.csv', `\ufeff${crlf}`)
    const tenfold = await file('ten-ipv4.csv', text.repeat(10))
    await importAsRegistry(store, [bom, V6], { date: '2026-06-18' })
    expect(await (await store.reader()).asnOverview(3356)).toEqual({
      ...want,
      registry: { source: 'bom-ipv4.csv, asn-ipv6.csv', date: '2026-06-18' },
    })
    await importAsRegistry(store, [tenfold, V6], { date: '2026-06-18' })
    expect((await (await store.reader()).asnOverview(3356)).address_space).toEqual(
      want.address_space,
    )
    // Latin-1 bytes (not UTF-8): read as Latin-1, searchable without the accent.
    const latin1 = Buffer.from('1.2.3.0,1.2.3.255,3352,"Telef\xf3nica de Espa\xf1a"\n', 'latin1')
    const path = await file('latin1-ipv4.csv', latin1)
    await utimes(path, new Date('2026-07-01T12:00:00Z'), new Date('2026-07-01T12:00:00Z'))
    const info = await importAsRegistry(store, [path])
    // The date defaults to the file's modification day; the old entries are gone.
    expect(info).toEqual({ source: 'latin1-ipv4.csv', date: '2026-07-01', asn_count: 1 })
    const reader = await store.reader()
    expect(await reader.searchAses('telefonica espana')).toEqual([
      { asn: 3352, name: 'Telefónica de España' },
    ])
    expect((await reader.asnOverview(13335).catch((e) => e)) instanceof AsnNotFoundError).toBe(true)
  })

  it('replaces the registry whole while another connection searches and imports', async () => {
    const other = await secondConnection(database)
    const rival = createKcoreStore(other)
    try {
      const one = await file(
        'one-ipv4.csv',
        '1.0.0.0,1.0.0.255,1,Alpha One\n2.0.0.0,2.0.0.255,2,Alpha Two\n',
      )
      const two = await file(
        'two-ipv4.csv',
        '3.0.0.0,3.0.0.255,3,Beta Three\n4.0.0.0,4.0.0.255,4,Beta Four\n',
      )
      await importAsRegistry(store, [one], { date: '2030-01-01' })
      const seen = new Set<string>()
      let importing = true
      const imports = (async () => {
        for (let i = 0; i < 6; i++)
          await Promise.all([
            importAsRegistry(store, [i % 2 ? one : two], { date: '2030-01-01' }),
            importAsRegistry(rival, [i % 2 ? two : one], { date: '2030-01-01' }),
          ])
        importing = false
      })()
      while (importing) {
        const found = await (await store.reader()).searchAses('a', { limit: 10 })
        // Always one whole registry: both Alphas or both Betas, never a mix or none.
        const names = found
          .map((m) => m.name)
          .sort()
          .join('|')
        expect(['Alpha One|Alpha Two', 'Beta Four|Beta Three']).toContain(names)
        seen.add(names)
      }
      await imports
      expect(await entryCount()).toBe(2)
      expect(seen.size).toBeGreaterThanOrEqual(1)
    } finally {
      await other.close()
    }
  })
})
