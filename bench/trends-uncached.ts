// Trend reads that no response cache can help: random ASNs drawn from the stored ones, over the
// ~460-snapshot IPv4 history of bench/trend-history.ts (PostgreSQL on DATABASE_URL, or PGlite
// with BENCH_DIALECT=pglite), response cache off. In one run, 64 connections, autocannon in a worker thread:
//   1. bare node:http answering one trend's bytes (the ceiling),
//   2. the handler, GET /api/trends/{random asn}, store with its in-memory trend read model,
//   3. the same with the read model off (every read is SQL),
//   4. POST /api/trends with 10 random ASNs, read model on.
// Prints req/s, p50, p99, the ratio to bare (target >= 0.25) and p99 (target <= 25 ms).
//
//   pnpm bench:trends:uncached        (BENCH_SECONDS=10, BENCH_SNAPSHOTS=460, BENCH_DIALECT)

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { createHandler } from '@kcore/http-adapter'
import { createKcoreStore } from '@kcore/store'
import autocannon from 'autocannon'
import { sql } from 'kysely'
import { benchDialect, openTrendHistory, readOnlyKcoreOptions } from './trend-history.js'

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const snapshotCount = Number(process.env.BENCH_SNAPSHOTS ?? 460)

const { database } = await openTrendHistory('kcore_bench_trends', snapshotCount)
// Neither keeps answers (memoBytes: false): every request reads, from the model or from SQL.
const modelOnly = createKcoreStore(database, { memoBytes: false })
const sqlOnly = createKcoreStore(database, { trendReadModel: false, memoBytes: false })
const { rows } = await sql<{ asn: number }>`select asn from kcore_asn_ipv4`.execute(database.db)
const stored = rows.map((r) => Number(r.asn))
// A fixed random draw (same for every run), cycled through by each connection.
let seed = 42
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31
  return seed / 2 ** 31
}
const pick = () => stored[Math.floor(random() * stored.length)]!
const singles: autocannon.Request[] = Array.from({ length: 5_000 }, () => ({
  method: 'GET',
  path: `/api/trends/${pick()}`,
}))
const multis: autocannon.Request[] = Array.from({ length: 2_000 }, () => ({
  method: 'POST',
  path: '/api/trends',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ asns: Array.from({ length: 10 }, pick) }),
}))

const withModel = createHandler({ kcore: readOnlyKcoreOptions(modelOnly) })
const withoutModel = createHandler({ kcore: readOnlyKcoreOptions(sqlOnly) })

// The read model loads before measuring (what a host does with store.loadTrendModel() at start).
const loadStart = performance.now()
await modelOnly.loadTrendModel()
console.log(`read model loaded in ${(performance.now() - loadStart).toFixed(0)} ms`)
const sample = await withModel(new Request('http://localhost/api/trends/3356'))
const bytes = Buffer.from(await sample.arrayBuffer())
const heapMb = (process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)
const rssMb = (process.memoryUsage().rss / 2 ** 20).toFixed(0)
console.log(
  `${stored.length} stored ASNs; GET /api/trends/3356 is ${bytes.length} bytes; heap ${heapMb} MiB, rss ${rssMb} MiB`,
)

const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  )
const servers: Server[] = []
const serve = (fetch: (r: Request) => Promise<Response>) => {
  const server = createAdaptorServer({ fetch }) as Server
  servers.push(server)
  return listen(server)
}
const bare = createServer((_req, res) => {
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': bytes.length,
  })
  res.end(bytes)
})
servers.push(bare)
const bareUrl = await listen(bare)
const modelUrl = await serve(withModel)
const sqlUrl = await serve(withoutModel)

const run = async (url: string, requests: autocannon.Request[], duration = seconds) => {
  const result = await autocannon({ url, connections: 64, duration, workers: 1, requests })
  const errors = result.errors + result.timeouts + result.non2xx
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors,
  }
}

try {
  await run(modelUrl, singles, 2)
  const bareResult = await run(bareUrl, [{ method: 'GET', path: '/' }])
  const modelResult = await run(modelUrl, singles)
  const multiResult = await run(modelUrl, multis)
  await run(sqlUrl, singles, 2)
  const sqlResult = await run(sqlUrl, singles)
  console.log(
    `\nrandom-ASN trends, ${snapshotCount} snapshots, ${seconds} s per run, 64 connections, ${benchDialect === 'pglite' ? 'PGlite' : 'PostgreSQL'}, response cache off`,
  )
  console.table({
    'bare node:http, same bytes': bareResult,
    'GET /api/trends/{random}, read model': modelResult,
    'POST /api/trends, 10 random ASNs, read model': multiResult,
    'GET /api/trends/{random}, SQL only': sqlResult,
  })
  const ratio = modelResult.rps / bareResult.rps
  console.log(
    `ratio read model / bare: ${ratio.toFixed(2)} (target >= 0.25) ${ratio >= 0.25 ? 'OK' : 'MISSED'}`,
  )
  console.log(
    `p99: ${modelResult.p99} ms (target <= 25 ms) ${modelResult.p99 <= 25 ? 'OK' : 'MISSED'}`,
  )
  console.log(`read model vs SQL only: ${(modelResult.rps / sqlResult.rps).toFixed(1)}x req/s`)
} finally {
  for (const server of servers) {
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  }
  await Promise.race([database.close(), new Promise((r) => setTimeout(r, 5_000).unref())])
  process.exit(process.exitCode ?? 0)
}
