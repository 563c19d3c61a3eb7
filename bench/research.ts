// Research routes on the real 2024-08-01 IPv4 snapshot (77,237 ASes), plus 2024-01-01 for movers:
//   1. the full shell list as CSV over HTTP: time to last byte (median of BENCH_CSV_ROUNDS) and
//      the server's peak memory above its idle level while streaming, against the CSV's size
//      (the route must not hold the whole answer);
//   2. autocannon, 16 connections, BENCH_SECONDS each: GET core?top=100, distribution, and movers
//      between 2024-01-01 and 2024-08-01: p50 and p99.
// The CSV, core and movers are measured twice, as is and with `include=names` (issue #43: names
// must not slow the default answer), with the shipped AS-name slice imported as `kcore serve`
// seeds it (packages/service/data/as-names); then each names figure over its default one.
//
//   pnpm bench:research                       PGlite in memory
//   BENCH_DB=postgres pnpm bench:research     a throwaway database on DATABASE_URL
//
// Server and load generator share the process (autocannon's load runs in a worker thread); the
// CSV client discards each chunk as it arrives, so the memory figure is the server's.
import { readFile } from 'node:fs/promises'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createAdaptorServer } from '@hono/node-server'
import { type Database, openPgliteDatabase, openPostgresDatabase } from '@kcore/db'
import { decomposeSnapshot } from '@kcore/engine'
import { createHandler } from '@kcore/http-adapter'
import { createKcoreStore, importAsRegistry } from '@kcore/store'
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
const namesDir = fileURLToPath(new URL('../packages/service/data/as-names/', import.meta.url))
const slice = JSON.parse(await readFile(join(namesDir, 'slice.json'), 'utf8')) as {
  source: string
  date: string
  files: Record<string, unknown>
}
const registry = await importAsRegistry(
  store,
  Object.keys(slice.files).map((name) => join(namesDir, `${name}.gz`)),
  { source: slice.source, date: slice.date },
)
console.log(`AS names: ${registry.asn_count} ASNs from ${registry.source}`)
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
const ratio = (names: number, plain: number) => `${(names / plain).toFixed(2)}×`
const NAMED = ' + names'
const withNames = (path: string) => `${path}${path.includes('?') ? '&' : '?'}include=names`

try {
  // 1. CSV: time to last byte and peak memory while streaming, the two variants alternating
  // round by round so a change of load on the machine weighs on both alike.
  const csvPath = '/api/snapshots/2024-08-01/shells?format=csv'
  const csv = new Map(
    [csvPath, withNames(csvPath)].map((path) => [
      path,
      { times: [] as number[], size: 0, peakRss: 0, peakHeap: 0 },
    ]),
  )
  for (let round = 0; round <= csvRounds; round++) {
    for (const [path, run] of csv) {
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
      const res = await fetch(base + path)
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`)
      const reader = res.body!.getReader()
      run.size = 0
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        run.size += value.length
      }
      const elapsed = performance.now() - started
      clearInterval(sampler)
      if (round === 0) continue // warm-up
      run.times.push(elapsed)
      run.peakRss = Math.max(run.peakRss, rss)
      run.peakHeap = Math.max(run.peakHeap, heap)
    }
  }
  console.log(`\n${engine}: GET ${csvPath} (${csvRounds} rounds each)`)
  const csvRows: Record<string, unknown> = {}
  for (const [path, run] of csv) {
    csvRows[`CSV, full shell list${path === csvPath ? '' : NAMED}`] = {
      size: mb(run.size),
      'time to last byte, median (ms)': Math.round(median(run.times)),
      'min..max (ms)': `${Math.round(Math.min(...run.times))}..${Math.round(Math.max(...run.times))}`,
      'peak heap above idle': mb(run.peakHeap),
      'peak RSS above idle': mb(run.peakRss),
    }
  }
  console.table(csvRows)
  const plainCsv = csv.get(csvPath)!
  const namedCsv = csv.get(withNames(csvPath))!
  const ratios: Record<string, unknown> = {
    'CSV, full shell list': {
      'time to last byte, median': ratio(median(namedCsv.times), median(plainCsv.times)),
    },
  }

  // 2. Latency at 16 connections.
  const core = '/api/snapshots/2024-08-01/core?top=100'
  const movers = '/api/movers?from=2024-01-01&to=2024-08-01'
  const paths = {
    'core?top=100': core,
    [`core?top=100${NAMED}`]: withNames(core),
    distribution: '/api/snapshots/2024-08-01/distribution',
    'movers 2024-01-01 -> 2024-08-01': movers,
    [`movers 2024-01-01 -> 2024-08-01${NAMED}`]: withNames(movers),
  }
  type Row = { 'req/s': number; 'p50 (ms)': number; 'p99 (ms)': number; errors: number }
  const rows: Record<string, Row> = {}
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
  for (const [name, named] of Object.entries(rows)) {
    const plain = name.endsWith(NAMED) ? rows[name.slice(0, -NAMED.length)] : undefined
    if (!plain) continue
    ratios[name.slice(0, -NAMED.length)] = {
      'req/s': ratio(named['req/s'], plain['req/s']),
      p50: ratio(named['p50 (ms)'], plain['p50 (ms)']),
      p99: ratio(named['p99 (ms)'], plain['p99 (ms)']),
    }
  }
  console.log(`\n${engine}: include=names over the default answer (1.00× = no cost)`)
  console.table(ratios)
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
