// The re-dated trend history the trend benchmarks share: ~460 monthly IPv4 snapshots (1986-01
// on) synthesized from the real CAIDA files in ../shared/data/caida, each distinct file
// decomposed once and stored under every date it stands for, in a PostgreSQL database of its
// own on DATABASE_URL (created on the first run, reused later; BENCH_FRESH=1 rebuilds it), or
// with BENCH_DIALECT=pglite in an embedded PGlite data directory under the OS temp directory.

import { readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Database, openPgliteDatabase, openPostgresDatabase } from '@kcore/db'
import { decomposeSnapshot, parseSnapshotFileName } from '@kcore/engine'
import { createKcoreStore, type KcoreStore } from '@kcore/store'
import postgres from 'postgres'

const caida = fileURLToPath(new URL('../../shared/data/caida/', import.meta.url))

/** Which engine the trend benchmarks run on (`BENCH_DIALECT`, default PostgreSQL). */
export const benchDialect = process.env.BENCH_DIALECT === 'pglite' ? 'pglite' : 'postgres'

/** The PostgreSQL database `dbName`, created when missing (dropped first with BENCH_FRESH). */
async function openPostgresHistory(dbName: string) {
  const baseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} })
  const exists = (await admin`select 1 from pg_database where datname = ${dbName}`).length > 0
  if (exists && process.env.BENCH_FRESH) {
    await admin.unsafe(`drop database "${dbName}" with (force)`)
  }
  if (!exists || process.env.BENCH_FRESH) await admin.unsafe(`create database "${dbName}"`)
  await admin.end()
  const url = new URL(baseUrl)
  url.pathname = `/${dbName}`
  return { database: openPostgresDatabase(url.toString()), exists }
}

/** The PGlite data directory `<tmp>/<dbName>-pglite` (removed first with BENCH_FRESH). */
async function openPgliteHistory(dbName: string) {
  const dir = join(tmpdir(), `${dbName}-pglite`)
  if (process.env.BENCH_FRESH) await rm(dir, { recursive: true, force: true })
  const database: Database = await openPgliteDatabase(dir)
  return { database, exists: true }
}

/** Opens (building it first if needed) the history in database `dbName`. */
export async function openTrendHistory(dbName: string, snapshotCount: number) {
  const { database, exists } =
    benchDialect === 'pglite' ? await openPgliteHistory(dbName) : await openPostgresHistory(dbName)
  const store = createKcoreStore(database)
  await store.migrate()

  const month = (i: number) => {
    const y = 1986 + Math.floor(i / 12)
    return `${y}-${String((i % 12) + 1).padStart(2, '0')}-01`
  }
  const stored = new Set(await (await store.reader()).storedDates('ipv4'))
  const wanted = Array.from({ length: snapshotCount }, (_, i) => month(i))
  const missing = wanted.filter((d) => !stored.has(d))
  console.log(
    `database ${dbName}: ${exists && !process.env.BENCH_FRESH ? 'reused' : 'created'}, ` +
      `${stored.size} ipv4 snapshots stored, ${missing.length} to ingest`,
  )
  if (missing.length) {
    const files = (await readdir(caida))
      .filter(
        (f) =>
          parseSnapshotFileName(f)?.ipVersion === 'ipv4' && parseSnapshotFileName(f)?.serial === 1,
      )
      .sort()
    const started = performance.now()
    const decomposed = new Map<string, Awaited<ReturnType<typeof decomposeSnapshot>>>()
    for (const date of missing) {
      const file = files[wanted.indexOf(date) % files.length]!
      let snapshot = decomposed.get(file)
      if (!snapshot) {
        snapshot = await decomposeSnapshot(new Uint8Array(await readFile(caida + file)))
        decomposed.set(file, snapshot)
      }
      await store.ingest({
        ipVersion: 'ipv4',
        date,
        decomposition: snapshot.decomposition,
        linkCount: snapshot.graph.linkCount,
        metadata: snapshot.graph.metadata,
        source: `${file} (re-dated)`,
      })
      process.stdout.write(`\ringested ${date} from ${file}   `)
    }
    console.log(
      `\ningest: ${missing.length} snapshots in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    )
    // No VACUUM or ANALYZE here: one blob row per snapshot, nothing for them to do.
  }
  return { database, store }
}

/**
 * Reads trends of `asn` through `store` until they come from its in-memory read model (whose
 * points are frozen; the database's search makes new ones), three at a time so that one of
 * them waits for the model's whole catch-up instead of a step per read.
 */
export async function untilModelLoaded(store: KcoreStore, asn = 3356): Promise<void> {
  for (;;) {
    const reader = await store.reader()
    const views = await Promise.all([1, 2, 3].map(() => reader.trends('ipv4', [asn])))
    if (views.every((view) => Object.isFrozen(view.trends.get(asn)?.[0] ?? Object.freeze({}))))
      return
  }
}

/**
 * kcore API options for a read-only bench over `store`: no provider work, no scheduler; with
 * `cached: false` the API keeps no trend answers (every request reads its trend).
 */
export function readOnlyKcoreOptions(store: KcoreStore, { cached = true } = {}) {
  return {
    store,
    ...(cached ? {} : { trendMemoBytes: false as const }),
    provider: {
      list: async () => [],
      open: async (): Promise<ReadableStream<Uint8Array>> => {
        throw new Error('unused')
      },
    },
    version: 'bench',
  }
}
