import { testDatabases } from '@kcore/db/testing'
import { loadPageAssets } from '@kcore/explorer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHandler } from '../src/index.js'
import { caller, kcoreHandler, openStore } from './kcore-helpers.js'

// createHandler mounts the explorer page at / beside the APIs (needs @kcore/explorer built).
describe.each(testDatabases())('the explorer mounted by createHandler on $name', ({ open }) => {
  let store: Awaited<ReturnType<typeof openStore>>
  beforeAll(async () => {
    store = await openStore(open)
  })
  afterAll(() => store.database.close())

  it('serves the page at / and its hashed assets by default, the APIs unchanged', async () => {
    const handler = kcoreHandler(store)
    const call = caller(handler)
    const { manifest } = await loadPageAssets()
    const page = await call('/?asns=3356&ip_version=ipv4')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.headers.get('cache-control')).toBe('no-cache')
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    expect(page.body).toContain(manifest.entry.js)
    for (const path of [manifest.entry.js, manifest.entry.css]) {
      const asset = await call(path)
      expect(asset.status).toBe(200)
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    }
    const head = await handler(new Request('http://localhost/', { method: 'HEAD' }))
    expect([head.status, await head.text()]).toEqual([200, ''])
    expect((await call('/api/health')).body).toMatchObject({ status: 'healthy' })
    await handler.close()
  })

  it('answers JSON 404 for anything else at the root, and for / when turned off', async () => {
    const handler = kcoreHandler(store)
    const call = caller(handler)
    for (const [method, path] of [
      ['GET', '/assets/explorer-NOPE.js'],
      ['GET', '/assets/../package.json'],
      ['GET', '/index.html'],
      ['GET', '/manifest.json'],
      ['POST', '/'],
      ['DELETE', '/'],
    ] as const) {
      const answer = await call(path, { method })
      expect([answer.status, answer.body?.error], `${method} ${path}`).toEqual([404, 'not_found'])
    }
    await handler.close()

    const off = createHandler({ explorer: false })
    const root = await caller(off)('/')
    expect([root.status, root.body?.error]).toEqual([404, 'not_found'])
    await off.close()
  })
})
