import { fileURLToPath } from 'node:url'
import { testDatabases } from '@kcore/db/testing'
import { importAsRegistry } from '@kcore/store'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Handler } from '../src/index.js'
import { caller, kcoreHandler, openStore, type TestStore } from './kcore-helpers.js'

// The AS registry over HTTP: the overview's additive name, address space and registry fields,
// the name search with its edges, and include=names on core and movers. The registry is the
// real slice in kcore-store's fixtures (CC BY 4.0, see its NOTICE.md).

const FIXTURES = fileURLToPath(
  new URL('../../kcore-store/test/fixtures/as-registry/', import.meta.url),
)

describe.each(testDatabases())('AS names over HTTP on $name', ({ open }) => {
  let store: TestStore
  let handler: Handler
  let get: ReturnType<typeof caller>

  beforeAll(async () => {
    store = await openStore(open)
    handler = kcoreHandler(store)
    get = caller(handler)
  })
  afterAll(async () => {
    await handler?.close()
    await store?.database.close()
  })

  const ingest = (date: string, pairs: [number, number][]) =>
    store.ingest({
      ipVersion: 'ipv4',
      date,
      decomposition: {
        asns: Uint32Array.from(pairs, ([a]) => a),
        shells: Uint32Array.from(pairs, ([, s]) => s),
        maxShell: Math.max(...pairs.map(([, s]) => s)),
      },
      linkCount: pairs.length,
    })

  it('answers the overview with nulls and no registry before any import, then with names', async () => {
    await ingest('2024-01-01', [
      [3356, 3],
      [174, 3],
      [64500, 1],
    ])
    await ingest('2024-02-01', [
      [3356, 3],
      [13335, 3],
      [64500, 2],
    ])
    const before = await get('/api/asns/3356')
    expect(before.status).toBe(200)
    expect(before.body).toMatchObject({
      asn: 3356,
      name: null,
      address_space: null,
      registry: null,
    })
    expect(before.body.ipv4).toMatchObject({ first_seen: '2024-01-01', snapshots: 2 })

    await importAsRegistry(store, [`${FIXTURES}asn-ipv4.csv`, `${FIXTURES}asn-ipv6.csv`], {
      date: '2026-06-17',
    })
    const after = await get('/api/asns/3356')
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'))
    expect(after.body).toEqual({
      ...before.body,
      name: 'Level 3 Communications, Inc.',
      address_space: expect.objectContaining({ ipv6: { slash48s: 3, prefixes: 3 } }),
      registry: { source: 'asn-ipv4.csv, asn-ipv6.csv', date: '2026-06-17' },
    })
    // In the registry only: 200 with both versions null. Trends only: name null. Neither: 404.
    expect((await get('/api/asns/2500')).body).toMatchObject({
      ipv4: null,
      ipv6: null,
      name: 'WIDE Project',
    })
    expect((await get('/api/asns/64500')).body).toMatchObject({ name: null, address_space: null })
    expect((await get('/api/asns/64501')).status).toBe(404)
  })

  it('searches names and numbers, and refuses bad searches and limits with 400', async () => {
    const search = async (query: string) => (await get(`/api/asns?${query}`)).body
    expect(await search('search=cloud')).toEqual({
      search: 'cloud',
      registry: { source: 'asn-ipv4.csv, asn-ipv6.csv', date: '2026-06-17' },
      asns: [{ asn: 13335, name: 'Cloudflare, Inc.' }],
    })
    expect((await search('search=AS13335')).asns).toEqual([
      { asn: 13335, name: 'Cloudflare, Inc.' },
    ])
    expect((await search('search=communications&limit=1')).asns).toHaveLength(1)
    expect((await search('search=e&limit=1000')).asns).toHaveLength(9)
    for (const nothing of ['%25', '_', '.*', '%5C'])
      expect((await search(`search=${nothing}`)).asns).toEqual([])
    for (const bad of [
      'search=',
      '',
      `search=${'x'.repeat(10_000)}`,
      'search=cloud&limit=0',
      'search=cloud&limit=-1',
      'search=cloud&limit=1001',
      'search=cloud&limit=abc',
    ]) {
      const res = await get(`/api/asns?${bad}`)
      expect(res.status, bad.slice(0, 40)).toBe(400)
      expect(res.body.error).toMatch(/^invalid_/)
    }
  })

  it('adds names beside the ASNs of core and movers with include=names, and only then', async () => {
    const core = await get('/api/snapshots/2024-02-01/core?k=3')
    expect(core.body.asns).toEqual([3356, 13335])
    expect(core.body.names).toBeUndefined()
    const named = await get('/api/snapshots/2024-02-01/core?k=3&include=names')
    expect(named.body).toEqual({
      ...core.body,
      names: ['Level 3 Communications, Inc.', 'Cloudflare, Inc.'],
    })
    const movers = await get('/api/movers?from=2024-01-01&to=2024-02-01&k=3&include=names')
    expect(movers.body.entered).toEqual([
      { asn: 13335, name: 'Cloudflare, Inc.', from_shell: null, to_shell: 3 },
    ])
    expect(movers.body.left).toEqual([
      { asn: 174, name: 'Cogent Communications', from_shell: 3, to_shell: null },
    ])
    expect(movers.body.risers[0]).toMatchObject({ asn: 64500, name: null })
    const plain = await get('/api/movers?from=2024-01-01&to=2024-02-01&k=3')
    expect(plain.body.entered).toEqual([{ asn: 13335, from_shell: null, to_shell: 3 }])
    expect((await get('/api/snapshots/2024-02-01/core?include=asns')).status).toBe(400)
  })
})
