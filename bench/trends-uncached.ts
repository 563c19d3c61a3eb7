// Trend reads that no response cache can help: random ASNs drawn from the stored ones, over the
// re-dated IPv4 history of bench/trend-history.ts (PostgreSQL on DATABASE_URL, or PGlite with
// BENCH_DIALECT=pglite), the API's trend memo off. In one run, 64 connections, autocannon in a
// worker thread:
//   1. bare node:http answering one trend's bytes (the ceiling), driven with the same paths,
//   2. the restart window: the first answer after a restart, for BENCH_FIRST random ASNs, each
//      in a process of its own (bench/first-answer.ts: median and max, since the target is
//      "any ASN"), then GET /api/trends/{random} on a store of this process that has loaded
//      nothing, in the first 10 s and in the 10 s after,
//   3. the same store once its in-memory trend read model has caught up: GET /api/trends/{random},
//   4. POST /api/trends with 10 random ASNs,
//   5. GET /api/trends/{random} on a store without the model: the database's search of the
//      stored blobs, what answers while a model loads.
// Prints req/s, p50, p99, the ratio to bare (target >= 0.5; >= 0.10 in the first 10 s after a
// restart) and p99 (target <= 25 ms). It runs the packages' dist, built first, as `kcore serve`
// does: from source tsx keeps every function's name, which costs the per-request closures.
//
//   pnpm bench:trends:uncached  (BENCH_SECONDS=10, BENCH_SNAPSHOTS=460, BENCH_DIALECT,
//                                BENCH_DB=kcore_bench_trends: the history database's name,
//                                BENCH_FIRST=15: first answers measured)
// The load average (os.loadavg, as `uptime` prints it) is printed at the start and the end.

import { execFileSync } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { createAdaptorServer } from '@hono/node-server'
import { createHandler } from '@kcore/http-adapter'
import { warmUp } from '@kcore/service'
import { createKcoreStore } from '@kcore/store'
import { decodeAsns } from '@kcore/store/testing'
import autocannon from 'autocannon'
import { sql } from 'kysely'
import { quantile } from './quantile.js'
import { benchDialect, openTrendHistory, readOnlyKcoreOptions } from './trend-history.js'

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const snapshotCount = Number(process.env.BENCH_SNAPSHOTS ?? 460)
const firstCount = Number(process.env.BENCH_FIRST ?? 15)
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')
console.log(`load average at start: ${load()}`)

const historyName = process.env.BENCH_DB ?? 'kcore_bench_trends'
let { database } = await openTrendHistory(historyName, snapshotCount)
const { rows } = await sql<{ asns: Uint8Array }>`select asns from kcore_known_asns
  where ip_version = 'ipv4'`.execute(database.db)
const stored = Array.from(decodeAsns(rows[0]!.asns))
// A fixed random draw (same for every run), cycled through by each connection. 256 paths, not
// thousands: autocannon's client churns its heap with a long request list, so the client, not
// the server, would set every figure. Bare is driven with the same list, so both sides of each
// ratio pay the same client.
let seed = 42
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31
  return seed / 2 ** 31
}
const pick = () => stored[Math.floor(random() * stored.length)]!
const singles: autocannon.Request[] = Array.from({ length: 256 }, () => ({
  method: 'GET',
  path: `/api/trends/${pick()}`,
}))
const multis: autocannon.Request[] = Array.from({ length: 256 }, () => ({
  method: 'POST',
  path: '/api/trends',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ asns: Array.from({ length: 10 }, pick) }),
}))

// The first answers after a restart: each a process of its own (bench/first-answer.ts) that
// opens the database, builds the store and handler, warms them up as the service does and
// answers one random ASN with nothing loaded, one process at a time; the first also times its
// model's loading. Each ASN is also answered by a process that skips the warm-up (--cold),
// alternating with the warm ones, to show what the warm-up earns. (PGlite's data directory is
// one process's at a time: this one lets go of it meanwhile.)
const firstAsns = Array.from({ length: firstCount }, pick)
if (benchDialect === 'pglite') await database.close()
const firstMs: number[] = []
const coldMs: number[] = []
const warmMs: number[] = []
const statuses = new Set<number>()
let coldLoadMs = 0
const firstAnswer = (asn: number, flags: string[]) => {
  const out = execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      fileURLToPath(new URL('first-answer.ts', import.meta.url)),
      String(asn),
      ...flags,
    ],
    { env: { ...process.env, BENCH_DB: historyName, BENCH_SNAPSHOTS: String(snapshotCount) } },
  )
  const answer = JSON.parse(out.toString().trim().split('\n').at(-1)!)
  statuses.add(answer.status)
  return answer as { ms: number; warmMs?: number; loadMs?: number }
}
for (const [i, asn] of firstAsns.entries()) {
  const answer = firstAnswer(asn, i === 0 ? ['--load'] : [])
  firstMs.push(answer.ms)
  warmMs.push(answer.warmMs ?? Number.NaN)
  if (i === 0) coldLoadMs = answer.loadMs ?? Number.NaN
  coldMs.push(firstAnswer(asn, ['--cold']).ms)
}
if (benchDialect === 'pglite') ({ database } = await openTrendHistory(historyName, snapshotCount))
/** Median and max of `values`, as the lines below print them. */
const medianMax = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return { median: quantile(sorted, 0.5), max: sorted.at(-1) ?? Number.NaN }
}
const inOrder = (values: number[]) => values.map((ms) => ms.toFixed(0)).join(' ')
const { median: firstMedian, max: firstMax } = medianMax(firstMs)
const warm = medianMax(warmMs)
const cold = medianMax(coldMs)
console.log(
  `restart: first answer of a new process, ${firstCount} random ASNs: median ${firstMedian.toFixed(0)} ms, max ${firstMax.toFixed(0)} ms (in order: ${inOrder(firstMs)}; statuses ${[...statuses].join(',')}); the first process's model then up to date in ${coldLoadMs.toFixed(0)} ms`,
)
console.log(
  `restart: the warm-up before it took median ${warm.median.toFixed(0)} ms, max ${warm.max.toFixed(0)} ms; without it the first answer took median ${cold.median.toFixed(0)} ms, max ${cold.max.toFixed(0)} ms (in order: ${inOrder(coldMs)})`,
)
// No API keeps answers: every request reads the model. One store with a model, as a restarted
// host has: it loads nothing until its first reads (the restart windows), then answers from its
// model (the runs after them). The other has none (its reads are the database's search).
const restarted = createKcoreStore(database)
const withModel = createHandler({ kcore: readOnlyKcoreOptions(restarted, { cached: false }) })
await warmUp(withModel, restarted)
const sqlOnly = createKcoreStore(database, { trendReadModel: false })
const searchOnly = createHandler({ kcore: readOnlyKcoreOptions(sqlOnly, { cached: false }) })
// What bare node:http answers: one trend's bytes, read by the database's search.
const sample = await searchOnly(
  new Request('http://localhost/api/trends/3356'),
)
const bytes = Buffer.from(await sample.arrayBuffer())
console.log(`${stored.length} stored ASNs; GET /api/trends/3356 is ${bytes.length} bytes`)

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
const sqlUrl = await serve(searchOnly)

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
  // A fresh store's first 10 s (it loads on the first reads), then its next 10 s.
  const restartFirst = await run(modelUrl, singles, 10)
  const restartNext = await run(modelUrl, singles, 10)
  await run(modelUrl, singles, 2)
  const bareResult = await run(bareUrl, singles)
  const modelResult = await run(modelUrl, singles)
  const multiResult = await run(modelUrl, multis)
  const sqlResult = await run(sqlUrl, singles)
  const heapMb = (process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)
  const rssMb = (process.memoryUsage().rss / 2 ** 20).toFixed(0)
  console.log(
    `\nrandom-ASN trends, ${snapshotCount} snapshots, ${seconds} s per run, 64 connections, ${benchDialect === 'pglite' ? 'PGlite' : 'PostgreSQL'}, response cache off; heap ${heapMb} MiB, rss ${rssMb} MiB after the runs`,
  )
  console.table({
    'bare node:http, same bytes': bareResult,
    'GET /api/trends/{random}, read model': modelResult,
    'POST /api/trends, 10 random ASNs, read model': multiResult,
    'GET /api/trends/{random}, search only (no model)': sqlResult,
    'restart: GET /api/trends/{random}, first 10 s': restartFirst,
    'restart: the same, 11th to 20th s': restartNext,
  })
  const ratio = modelResult.rps / bareResult.rps
  console.log(
    `ratio read model / bare: ${ratio.toFixed(2)} (target >= 0.5) ${ratio >= 0.5 ? 'OK' : 'MISSED'}`,
  )
  console.log(
    `p99: ${modelResult.p99} ms (target <= 25 ms) ${modelResult.p99 <= 25 ? 'OK' : 'MISSED'}`,
  )
  const first = restartFirst.rps / bareResult.rps
  const next = restartNext.rps / bareResult.rps
  console.log(
    `after a restart: first 10 s ${first.toFixed(2)}x bare (target >= 0.10) ${first >= 0.1 ? 'OK' : 'MISSED'}, ` +
      `11th s on ${next.toFixed(2)}x (>= 0.25) ${next >= 0.25 ? 'OK' : 'MISSED'}, p99 ${restartNext.p99} ms (<= 25) ${restartNext.p99 <= 25 ? 'OK' : 'MISSED'}; ` +
      `first answer (${firstCount} random ASNs) median ${firstMedian.toFixed(0)} ms, max ${firstMax.toFixed(0)} ms (<= 100) ${firstMax <= 100 ? 'OK' : 'MISSED'}`,
  )
  console.log(`load average at the end: ${load()}`)
} finally {
  for (const server of servers) {
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  }
  await Promise.race([database.close(), new Promise((r) => setTimeout(r, 5_000).unref())])
  process.exit(process.exitCode ?? 0)
}
