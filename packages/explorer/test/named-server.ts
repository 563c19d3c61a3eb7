import { readdir } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import { type Database, openPgliteDatabase } from '@kcore/db'
import { parseSnapshotFileName } from '@kcore/engine'
import { createHandler } from '@kcore/http-adapter'
import { createKcoreStore, importAsRegistry, ingestFile } from '@kcore/store'

// The explorer's browser suite's server: in-memory PGlite seeded with the sample snapshots of
// packages/service/data and, since the samples carry no names, a tiny AS registry of the
// @ip-location-db/asn shape (test/fixtures), imported through the store's own function.
const SAMPLE_DIR = fileURLToPath(new URL('../../service/data/', import.meta.url))
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url))
export const REGISTRY = { source: 'test registry', date: '2026-06-01' }

export interface NamedServer {
  url: string
  /** The server's database, for a suite that needs a state no ingest makes. */
  database: Database
  close(): Promise<void>
}

export async function startNamedServer(): Promise<NamedServer> {
  const database = await openPgliteDatabase()
  const store = createKcoreStore(database)
  await store.migrate()
  const files = (await readdir(SAMPLE_DIR)).filter((name) => parseSnapshotFileName(name)).sort()
  for (const name of files) await ingestFile(store, join(SAMPLE_DIR, name))
  await importAsRegistry(
    store,
    [join(FIXTURES, 'as-registry-ipv4.csv'), join(FIXTURES, 'as-registry-ipv6.csv')],
    REGISTRY,
  )
  const handler = createHandler({
    kcore: {
      store,
      provider: { list: async () => [], open: async () => Promise.reject(new Error('none')) },
      version: '9.9.9-test',
    },
  })
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: handler, port: 0, hostname: '127.0.0.1' }, () =>
      resolve(started),
    )
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    database,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await handler.close()
      await database.close()
    },
  }
}
