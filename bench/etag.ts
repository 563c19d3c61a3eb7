// Conditional GET against the plain 200: the trend of AS3356 over the full re-dated history
// (see bench/trend-history.ts), served by the handler behind @hono/node-server, loaded by
// autocannon with 64 connections. One run measures both paths and prints req/s and p99 of each
// and their ratios. Goal: a 304 (If-None-Match with the current tag) at least 3x cheaper.
//
//   pnpm bench:etag                 (BENCH_SECONDS=10, BENCH_SNAPSHOTS=460, BENCH_ASN=3356)
//
// Uses its own database `kcore_bench_etag` on DATABASE_URL (built on the first run, reused).

import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { createHandler } from '@kcore/http-adapter'
import autocannon from 'autocannon'
import { openTrendHistory, readOnlyKcoreOptions } from './trend-history.js'

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const snapshotCount = Number(process.env.BENCH_SNAPSHOTS ?? 460)
const ASN = Number(process.env.BENCH_ASN ?? 3356)

const { database, store } = await openTrendHistory('kcore_bench_etag', snapshotCount)
const handler = createHandler({ kcore: readOnlyKcoreOptions(store) })
const path = `/api/trends/${ASN}`
const sample = await handler(new Request(`http://localhost${path}`))
const etag = sample.headers.get('etag')
if (sample.status !== 200 || !etag) throw new Error(`GET ${path}: ${sample.status}, no ETag`)
const body = await sample.text()
const check = await handler(
  new Request(`http://localhost${path}`, { headers: { 'if-none-match': etag } }),
)
if (check.status !== 304) throw new Error(`If-None-Match ${etag}: ${check.status}, not 304`)
console.log(
  `GET ${path}: ${JSON.parse(body).trend_data.length} points, ${body.length} bytes, ETag ${etag}`,
)

const server = createAdaptorServer({ fetch: handler }) as Server
const base = await new Promise<string>((resolve) =>
  server.listen(0, '127.0.0.1', () =>
    resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
  ),
)

const run = async (duration: number, headers: Record<string, string>, expected: number) => {
  const result = await autocannon({
    url: `${base}${path}`,
    connections: 64,
    duration,
    workers: 1,
    headers,
  })
  const statuses = result.statusCodeStats as Record<string, { count: number }>
  const wrong = Object.entries(statuses)
    .filter(([code]) => Number(code) !== expected)
    .reduce((n, [, s]) => n + s.count, 0)
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + wrong,
  }
}

try {
  await run(2, {}, 200) // warm-up: JIT, connection pool, response cache
  await run(2, { 'if-none-match': etag }, 304)
  const full = await run(seconds, {}, 200)
  const notModified = await run(seconds, { 'if-none-match': etag }, 304)
  console.log(`\netag: ${seconds} s per run, 64 connections, PostgreSQL`)
  console.table({ '200 (full body)': full, '304 (If-None-Match)': notModified })
  const rpsRatio = notModified.rps / full.rps
  const p99Ratio = full.p99 / Math.max(notModified.p99, 1)
  console.log(`req/s 304/200: ${rpsRatio.toFixed(2)}   p99 200/304: ${p99Ratio.toFixed(2)}`)
  console.log(`goal 304 >= 3x cheaper (req/s): ${rpsRatio >= 3 ? 'OK' : 'MISSED'}`)
} finally {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
  await handler.close()
  const closed = await Promise.race([
    database.close().then(() => true),
    new Promise<false>((r) => setTimeout(() => r(false), 5_000).unref()),
  ])
  if (!closed) console.log('note: database.close() did not finish within 5 s; exiting anyway')
  process.exit(process.exitCode ?? 0)
}
