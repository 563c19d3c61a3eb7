// Research routes on the real 2024-08-01 IPv4 snapshot (77,237 ASes), plus 2024-01-01 for movers:
//   1. the full shell list as CSV over HTTP: time to last byte (median of BENCH_CSV_ROUNDS) and
//      the server's peak memory above its idle level while streaming, against the CSV's size
//      (the route must not hold the whole answer);
//   2. autocannon, 16 connections, BENCH_SECONDS each: GET core?top=100, distribution, and movers
//      between 2024-01-01 and 2024-08-01: p50 and p99.
//
//   pnpm bench:research                       PGlite in memory
//   BENCH_DB=postgres pnpm bench:research     a throwaway database on DATABASE_URL
//
// Server and load generator share the process (autocannon's load runs in a worker thread); the
// CSV client discards each chunk as it arrives, so the memory figure is the server's.
import { readFile } from 'node:fs/promises'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { createAdaptorServer } from '@hono/node-server'
import { type Database, openPgliteDatabase, openPostgresDatabase } from '@kcore/db'
import { decomposeSnapshot } from '@kcore/engine'
import { createHandler } from '@kcore/http-adapter'
import { createKcoreStore } from '@kcore/store'
import autocannon from 'autocannon'
import { sql } from 'kysely'
import postgres from 'postgres'

const caida = fileURLToPath(new URL('../../shared/data/caida/', import.meta.url))
const engine = process.env.BENCH_DB === 'postgres' ? 'postgres' : 'pglite'
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const csvRounds = Number(process.env.BENCH_CSV_ROUNDS ?? 5)
const baseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const dbName = `kcore_bench_research_${process.pid}`

let database: Database
if (engine === 'postgres') {
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} })
  await admin.unsafe(`create database "${dbName}"`)
  await admin.end()
  const url = new URL(baseUrl)
  url.pathname = `/${dbName}`
  database = openPostgresDatabase(url.toString(), { maxConnections: 16 })
} else database = await openPgliteDatabase()

const store = createKcoreStore(database)
await store.migrate()
for (const [file, date] of [
  ['20240101.as-rel.txt.bz2', '2024-01-01'],
  ['20240801.as-rel.txt.bz2', '2024-08-01'],
] as const) {
  const { graph, decomposition } = await decomposeSnapshot(
    new Uint8Array(await readFile(caida + file)),
  )
  await store.ingest({
    ipVersion: 'ipv4',
    date,
    decomposition,
    linkCount: graph.linkCount,
    source: file,
  })
}
// What autovacuum does on a live database: statistics and the visibility map (index-only scans).
if (engine === 'postgres') await sql`vacuum analyze`.execute(database.db)
const handler = createHandler({
  kcore: {
    store,
    provider: { list: async () => [], open: async () => Promise.reject(new Error('unused')) },
    version: 'bench',
  },
})
const app = createAdaptorServer({ fetch: handler }) as Server
const base = await new Promise<string>((resolve) =>
  app.listen(0, '127.0.0.1', () =>
    resolve(`http://127.0.0.1:${(app.address() as AddressInfo).port}`),
  ),
)

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`

try {
  // 1. CSV: time to last byte and peak memory while streaming.
  const csvPath = '/api/snapshots/2024-08-01/shells?format=csv'
  const times: number[] = []
  let size = 0
  let peakRss = 0
  let peakHeap = 0
  for (let round = 0; round <= csvRounds; round++) {
    global.gc?.()
    const idle = process.memoryUsage()
    let rss = 0
    let heap = 0
    const sampler = setInterval(() => {
      const m = process.memoryUsage()
      rss = Math.max(rss, m.rss - idle.rss)
      heap = Math.max(heap, m.heapUsed - idle.heapUsed)
    }, 2)
    const started = performance.now()
    const res = await fetch(base + csvPath)
    const reader = res.body!.getReader()
    size = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.length
    }
    const elapsed = performance.now() - started
    clearInterval(sampler)
    if (round === 0) continue // warm-up
    times.push(elapsed)
    peakRss = Math.max(peakRss, rss)
    peakHeap = Math.max(peakHeap, heap)
  }
  console.log(`\n${engine}: GET ${csvPath}`)
  console.table({
    'CSV, full shell list': {
      size: mb(size),
      'time to last byte, median (ms)': Math.round(median(times)),
      'min..max (ms)': `${Math.round(Math.min(...times))}..${Math.round(Math.max(...times))}`,
      'peak heap above idle': mb(peakHeap),
      'peak RSS above idle': mb(peakRss),
    },
  })

  // 2. Latency at 16 connections.
  const paths = {
    'core?top=100': '/api/snapshots/2024-08-01/core?top=100',
    distribution: '/api/snapshots/2024-08-01/distribution',
    'movers 2024-01-01 -> 2024-08-01': '/api/movers?from=2024-01-01&to=2024-08-01',
  }
  const rows: Record<string, unknown> = {}
  for (const [name, path] of Object.entries(paths)) {
    const check = await fetch(base + path)
    if (check.status !== 200) throw new Error(`${path}: ${check.status} ${await check.text()}`)
    await check.arrayBuffer()
    await autocannon({ url: base + path, connections: 16, duration: 2, workers: 1 })
    const r = await autocannon({ url: base + path, connections: 16, duration: seconds, workers: 1 })
    rows[name] = {
      'req/s': Math.round(r.requests.average),
      'p50 (ms)': r.latency.p50,
      'p99 (ms)': r.latency.p99,
      errors: r.errors + r.timeouts + r.non2xx,
    }
  }
  console.log(`\n${engine}: 16 connections, ${seconds} s each`)
  console.table(rows)
} finally {
  app.closeAllConnections()
  await new Promise((r) => app.close(r))
  await handler.close()
  await database.close()
  if (engine === 'postgres') {
    const admin = postgres(baseUrl, { max: 1, onnotice: () => {} })
    await admin.unsafe(`drop database if exists "${dbName}" with (force)`)
    await admin.end()
  }
}
