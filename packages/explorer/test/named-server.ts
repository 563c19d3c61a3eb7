import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Database } from '@kcore/db'
import { openTestPglite } from '@kcore/db/testing'
import { parseSnapshotFileName } from '@kcore/engine'
import { createKcoreStore, importAsRegistry, ingestFile } from '@kcore/store'
import { SAMPLE_DIR, serveStore } from '../../http-adapter/test/explorer-server.js'

// The explorer's browser suite's server: in-memory PGlite seeded with the sample snapshots of
// packages/service/data and, since the samples carry no names, a tiny AS registry of the
// @ip-location-db/asn shape (test/fixtures), imported through the store's own function.
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url))
export const REGISTRY = { source: 'test registry', date: '2026-06-01' }

export interface NamedServer {
  url: string
  /** The server's database, for a suite that needs a state no ingest makes. */
  database: Database
  close(): Promise<void>
}

export async function startNamedServer(): Promise<NamedServer> {
  const database = await openTestPglite()
  const store = createKcoreStore(database)
  await store.migrate()
  const files = (await readdir(SAMPLE_DIR)).filter((name) => parseSnapshotFileName(name)).sort()
  for (const name of files) await ingestFile(store, join(SAMPLE_DIR, name))
  await importAsRegistry(
    store,
    [join(FIXTURES, 'as-registry-ipv4.csv'), join(FIXTURES, 'as-registry-ipv6.csv')],
    REGISTRY,
  )
  return { ...(await serveStore(store, database)), database }
}
