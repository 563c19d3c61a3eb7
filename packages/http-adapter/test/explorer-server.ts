import { readdir } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import type { Database } from '@kcore/db'
import { openTestPglite } from '@kcore/db/testing'
import { createProvider, parseSnapshotFileName } from '@kcore/engine'
import { createKcoreStore, ingestFile, type KcoreStore, syncFromProvider } from '@kcore/store'
import { createHandler } from '../src/index.js'
import { emptyProvider } from './kcore-helpers.js'

/** The sample snapshots every newcomer's `kcore serve` starts with (6 IPv4, 1 IPv6). */
export const SAMPLE_DIR = fileURLToPath(new URL('../../service/data/', import.meta.url))

/** A real HTTP server on 127.0.0.1, port 0, over in-memory PGlite seeded with the samples (unless `seed: false`). */
export interface SeededServer {
  url: string
  close(): Promise<void>
}

/**
 * `providerUrl`: instead of the samples, every IPv4 snapshot of that provider (a `file://`
 * mirror such as the real history), stored as a backfill stores them.
 */
export async function startSeededServer(
  options: { seed?: boolean; providerUrl?: string } = {},
): Promise<SeededServer> {
  const database = await openTestPglite()
  const store = createKcoreStore(database)
  await store.migrate()
  if (options.providerUrl) {
    const provider = createProvider({ baseUrl: options.providerUrl })
    const { ipv4 } = await syncFromProvider({ store, provider, ipVersions: ['ipv4'] })
    if (ipv4?.failures.length)
      throw new Error(
        `backfill failed: ${ipv4.failures.map((f) => `${f.date}: ${f.error}`).join('; ')}`,
      )
  }
  const files =
    options.seed === false || options.providerUrl
      ? []
      : (await readdir(SAMPLE_DIR)).filter((name) => parseSnapshotFileName(name)).sort()
  for (const name of files) await ingestFile(store, join(SAMPLE_DIR, name))
  return serveStore(store, database)
}

/**
 * The k-core API over `store` on a real HTTP server (127.0.0.1, port 0); `close` stops the
 * server, then the handler, then `database`.
 */
export async function serveStore(store: KcoreStore, database: Database): Promise<SeededServer> {
  const handler = createHandler({
    kcore: {
      store,
      provider: emptyProvider,
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
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await handler.close()
      await database.close()
    },
  }
}
