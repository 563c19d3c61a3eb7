// Trend reads over a long history: ~460 monthly IPv4 snapshots (1986-01 on) synthesized by
// re-dating the real CAIDA files in ../shared/data/caida (each distinct file decomposed once,
// stored under every date it stands for), in PostgreSQL (DATABASE_URL). Then, in the same run,
// autocannon (64 connections) against
//   1. the handler (createHandler + @hono/node-server) answering GET /api/trends/{asn}, and
//   2. a bare node:http server answering the same bytes,
// and prints req/s of both, their ratio (target >= 0.5) and the handler's p99 (target <= 20 ms).
// A third run uses the handler with its response cache off (every request reads the model).
//
//   pnpm bench:trends                    (BENCH_SECONDS=10, BENCH_SNAPSHOTS=460)
//   BENCH_FRESH=1 pnpm bench:trends      rebuild the database instead of reusing it
//
// The database `kcore_bench_trends` on the DATABASE_URL server is created on the first run and
// reused later (ingesting 460 snapshots takes minutes); drop it to start over.

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createAdaptorServer } from '@hono/node-server'
import { createHandler } from '@kcore/http-adapter'
import autocannon from 'autocannon'
import { openTrendHistory, readOnlyKcoreOptions, untilModelLoaded } from './trend-history.js'

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const snapshotCount = Number(process.env.BENCH_SNAPSHOTS ?? 460)
const ASN = Number(process.env.BENCH_ASN ?? 3356)

const { database, store } = await openTrendHistory('kcore_bench_trends', snapshotCount)

const kcoreOptions = readOnlyKcoreOptions(store)
const handler = createHandler({ kcore: kcoreOptions })
// The same store through an API that keeps no trend answers: every request reads its trend.
await untilModelLoaded(store, ASN)
const uncached = createHandler({ kcore: readOnlyKcoreOptions(store, { cached: false }) })
const path = `/api/trends/${ASN}`
const sample = await handler(new Request(`http://localhost${path}`))
if (sample.status !== 200) throw new Error(`GET ${path}: ${sample.status} ${await sample.text()}`)
const bytes = Buffer.from(await sample.arrayBuffer())
const points = JSON.parse(bytes.toString()).trend_data.length
console.log(`GET ${path}: ${points} points, ${bytes.length} bytes`)

const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  )
const app = createAdaptorServer({ fetch: handler }) as Server
const bare = createServer((_req, res) => {
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'x-content-type-options': 'nosniff',
    'content-length': bytes.length,
  })
  res.end(bytes)
})
const appUrl = await listen(app)
const uncachedApp = createAdaptorServer({ fetch: uncached }) as Server
const uncachedUrl = await listen(uncachedApp)
const bareUrl = await listen(bare)

const run = async (target: string, duration: number, requests?: autocannon.Request[]) => {
  // the load generator runs in a worker thread, so it does not share the servers' event loop
  const result = await autocannon({
    url: `${target}${path}`,
    connections: 64,
    duration,
    workers: 1,
    ...(requests ? { requests } : {}),
  })
  const errors = result.errors + result.timeouts + result.non2xx
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors }
}

try {
  await run(appUrl, 2) // warm-up: JIT, connection pool
  await run(bareUrl, 2)
  const handlerResult = await run(appUrl, seconds)
  const bareResult = await run(bareUrl, seconds)
  await run(uncachedUrl, 2)
  const uncachedResult = await run(uncachedUrl, seconds)
  const ratio = handlerResult.rps / bareResult.rps
  console.log(`\ntrends: ${points}-point history, ${seconds} s per run, 64 connections, PostgreSQL`)
  console.table({
    [`handler GET ${path}`]: handlerResult,
    'bare node:http, same bytes': bareResult,
    'handler without response cache': uncachedResult,
  })
  console.log(
    `ratio handler/bare: ${ratio.toFixed(2)} (target >= 0.5) ${ratio >= 0.5 ? 'OK' : 'MISSED'}`,
  )
  console.log(
    `handler p99: ${handlerResult.p99} ms (target <= 20 ms) ${handlerResult.p99 <= 20 ? 'OK' : 'MISSED'}`,
  )
} finally {
  for (const server of [app, bare, uncachedApp]) {
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  }
  await handler.close()
  await uncached.close()
  // postgres.js may wait on connections the load left behind: do not hang the run on it
  const closed = await Promise.race([
    database.close().then(() => true),
    new Promise<false>((r) => setTimeout(() => r(false), 5_000).unref()),
  ])
  if (!closed) console.log('note: database.close() did not finish within 5 s; exiting anyway')
  process.exit(process.exitCode ?? 0)
}
