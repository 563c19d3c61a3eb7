import { inspect } from 'node:util'
import { getRequestListener } from '@hono/node-server'
import { testDatabases } from '@kcore/db/testing'
import { ingestFile } from '@kcore/store'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Handler } from '../src/index.js'
import { caidaFile, kcoreHandler, openStore, type TestStore } from './kcore-helpers.js'

// @hono/node-server replaces the global Response with its lightweight one once a listener is
// made (as `kcore serve` and every Node host over it do). That Response rebuilds itself from its
// init when its body is read: headers the core set afterwards on a copy (ETag, Cache-Control,
// nosniff) were lost, so a host reading the body first saw none of them.
getRequestListener(() => new Response(null))

describe.each(testDatabases())(
  'the core under a lightweight global Response, on $name',
  ({ open }) => {
    let store: TestStore
    let handler: Handler

    beforeAll(async () => {
      store = await openStore(open)
      await ingestFile(store, caidaFile('19980101'))
      handler = kcoreHandler(store)
    })
    afterAll(async () => {
      await handler?.close()
      await store?.database.close()
    })

    it.each([
      '/api/health',
      '/api/snapshots/1998-01-01',
      '/api/trends/701',
      '/api/snapshots/1998-01-01/shells?format=csv',
    ])('%s keeps every header of the core when its body is read first', async (path) => {
      const response = await handler(new Request(`http://localhost${path}`))
      expect(inspect(response), 'the lightweight Response is installed').toMatch(
        /^Response \(lightweight\)/,
      )
      await response.arrayBuffer()
      expect(response.status, path).toBe(200)
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff')
      if (path !== '/api/health') {
        expect(response.headers.get('etag'), path).toMatch(/^"[^"]+"$/)
        expect(response.headers.get('cache-control'), path).toBe('no-cache')
      }
    })
  },
)
