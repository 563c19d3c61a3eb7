// What-if over HTTP on the real 2024-08-01 IPv4 snapshot (77k ASes, 497k links), stored the way
// a host stores it: `ingestFile` into a fresh PGlite data directory (decomposed and its links
// encoded in a worker thread), served by `createHandler` on a real HTTP server (port 0).
//   1. `POST /api/what-if {remove_asns:[174]}`: the first answer (decodes the stored links) and
//      p50/p99 of BENCH_REQUESTS sequential answers after it (the store keeps the decoded graph
//      per revision), beside the target (p50 <= 30 ms);
//   2. meanwhile a second client asks `GET /api/health` in a loop: its p50/p99 say how long the
//      what-if work holds the event loop (decode and whatIf run on it);
//   3. the stored bytes of the snapshot's links (`octet_length(links)`) and of its shells;
//   4. with BENCH_HISTORY=1, the whole serial-1 history (`history/serial-1/`, 317 files) is
//      ingested too and `POST /api/what-if/history {remove_asns:[174]}` streamed: time to the
//      first line and to the last (the target: <= 15 s), health meanwhile, and the
//      links' bytes over the history.
// Client and server share the process (and its 2 cores with the neighbours), as in the other
// HTTP benches. No assertions: figures only.
//   pnpm bench:what-if-http
//   BENCH_REQUESTS=500 BENCH_ASN=3356 pnpm bench:what-if-http
//   BENCH_HISTORY=1 pnpm bench:what-if-http
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createAdaptorServer } from '@hono/node-server'
import { openPgliteDatabase } from '@kcore/db'
import { createHandler } from '@kcore/http-adapter'
import { createKcoreStore, ingestFile } from '@kcore/store'
import { sql } from 'kysely'
import { quantile } from './quantile.js'

const caida = fileURLToPath(new URL('../../shared/data/caida/', import.meta.url))
const file = process.env.BENCH_FILE ?? '20240801.as-rel.txt.bz2'
const asn = Number(process.env.BENCH_ASN ?? 174)
const requests = Number(process.env.BENCH_REQUESTS ?? 200)
const withHistory = process.env.BENCH_HISTORY === '1'
const TARGET_MS = 30
const HISTORY_TARGET_S = 15

const dir = await mkdtemp(join(os.tmpdir(), 'kcore-bench-what-if-'))
const database = await openPgliteDatabase(join(dir, 'pgdata'))
const store = createKcoreStore(database)
await store.migrate()
const ingestStarted = performance.now()
const { date } = await ingestFile(store, caida + file)
const ingestMs = performance.now() - ingestStarted
const historyDir = `${caida}history/serial-1/`
const historyFiles = withHistory
  ? (await readdir(historyDir)).filter((name) => name.endsWith('.bz2')).sort()
  : []
const historyStarted = performance.now()
for (const name of historyFiles)
  if (!name.startsWith(file.slice(0, 8)))
    await ingestFile(store, historyDir + name, { allowImplausible: true })
const historyIngestMs = performance.now() - historyStarted

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

const body = JSON.stringify({ date, ip_version: 'ipv4', remove_asns: [asn] })
async function ask(): Promise<{ ms: number; changed: number }> {
  const started = performance.now()
  const res = await fetch(`${base}/api/what-if`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  })
  const answer = (await res.json()) as { changes?: unknown[] }
  if (res.status !== 200)
    throw new Error(`what-if answered ${res.status}: ${JSON.stringify(answer)}`)
  return { ms: performance.now() - started, changed: answer.changes?.length ?? 0 }
}

const fmt = (ms: number) => Number(ms.toFixed(1))
try {
  const first = await ask()
  const pinger = healthPinger()
  const times: number[] = []
  for (let i = 0; i < requests; i++) times.push((await ask()).ms)
  const health = await pinger.stop()
  times.sort((a, b) => a - b)

  const { rows } = await sql<{ links: number; shells: number; link_count: number }>`
    select octet_length(l.links)::int as links,
      (octet_length(s.asns) + octet_length(s.shells))::int as shells, n.link_count
    from kcore_snapshot n
    join kcore_snapshot_shells s on s.ip_version = n.ip_version and s.date = n.date
    join kcore_snapshot_links l on l.ip_version = n.ip_version and l.snapshot_date = n.date
    where n.date = ${date}::date`.execute(database.db)
  const stored = rows[0]!

  console.log(
    `\nPOST /api/what-if {remove_asns:[${asn}]} on ${file} (PGlite, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(2)})`,
  )
  console.log(
    `ingestFile: ${Math.round(ingestMs)} ms; ASes whose shell index changes: ${first.changed}`,
  )
  console.table({
    'what-if, first (decodes the links)': { 'p50 (ms)': fmt(first.ms), 'p99 (ms)': '', n: 1 },
    'what-if, after it': {
      'p50 (ms)': fmt(quantile(times, 0.5)),
      'p99 (ms)': fmt(quantile(times, 0.99)),
      n: times.length,
    },
    'target (issue #44)': { 'p50 (ms)': `<= ${TARGET_MS}`, 'p99 (ms)': '', n: '' },
    'GET /api/health meanwhile': {
      'p50 (ms)': fmt(quantile(health, 0.5)),
      'p99 (ms)': fmt(quantile(health, 0.99)),
      n: health.length,
    },
  })
  if (withHistory) await streamHistory()
  console.log(
    `stored: links ${(stored.links / 1024).toFixed(0)} KiB (${(stored.links / stored.link_count).toFixed(2)} bytes per link), ` +
      `shells ${(stored.shells / 1024).toFixed(0)} KiB`,
  )
} finally {
  await new Promise<void>((resolve) => app.close(() => resolve()))
  await handler.close()
  await database.close()
  await rm(dir, { recursive: true, force: true })
}

/** Asks `GET /api/health` in a loop until stopped; the latencies, ascending. */
function healthPinger() {
  const health: number[] = []
  let running = true
  const loop = (async () => {
    while (running) {
      const started = performance.now()
      const res = await fetch(`${base}/api/health`)
      await res.arrayBuffer()
      health.push(performance.now() - started)
    }
  })()
  return {
    async stop() {
      running = false
      await loop
      return health.sort((a, b) => a - b)
    },
  }
}

/** Streams the history question and prints its figures. */
async function streamHistory() {
  const pinger = healthPinger()
  const started = performance.now()
  const res = await fetch(`${base}/api/what-if/history`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ip_version: 'ipv4', remove_asns: [asn] }),
  })
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let firstLineMs = Number.NaN
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (Number.isNaN(firstLineMs)) firstLineMs = performance.now() - started
    text += decoder.decode(value, { stream: true })
  }
  const totalMs = performance.now() - started
  const health = await pinger.stop()
  const lines = text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { error?: string })
  const { rows } = await sql<{ n: number; bytes: string }>`
    select count(*)::int as n, sum(octet_length(links))::text as bytes from kcore_snapshot_links
    where ip_version = 'ipv4'`.execute(database.db)
  const { n, bytes } = rows[0]!
  console.log(
    `\nPOST /api/what-if/history {remove_asns:[${asn}]}: ${lines.length} lines ` +
      `(${lines.filter((line) => line.error).length} errors), history ingested in ${Math.round(historyIngestMs / 1000)} s`,
  )
  console.table({
    'first line (ms)': fmt(firstLineMs),
    'last line (s)': fmt(totalMs / 1000),
    'target (s)': `<= ${HISTORY_TARGET_S}`,
    'health meanwhile p50 (ms)': fmt(quantile(health, 0.5)),
    'health meanwhile p99 (ms)': fmt(quantile(health, 0.99)),
    'health requests': health.length,
  })
  console.log(
    `stored links over ${n} snapshots: ${(Number(bytes) / 1024 / 1024).toFixed(1)} MiB ` +
      `(${(Number(bytes) / n / 1024).toFixed(0)} KiB per snapshot on average)`,
  )
}
