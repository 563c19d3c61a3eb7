// Sustained load on both APIs: a real `kcore serve` process on PostgreSQL, autocannon with 64
// connections for 60 s (LOAD_SECONDS to change) over a mix of k-core and calendar reads.
// Prints req/s, p99, errors and the server's resident memory after warm-up and after the run.
//   pnpm build && pnpm bench:load
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import postgres from 'postgres'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = `${root}packages/cli/dist/bin.js`
const caida = fileURLToPath(new URL('../../shared/data/caida/', import.meta.url))
const seconds = Number(process.env.LOAD_SECONDS ?? 60)
const WARM_UP_SECONDS = Number(process.env.LOAD_WARM_UP_SECONDS ?? 60)
const baseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const port = 18_000 + Math.floor(Math.random() * 1000)
const token = 'bench-token'

if (!existsSync(bin)) throw new Error('build first: pnpm build')

const dbName = `kcore_load_${Date.now().toString(36)}`
const admin = postgres(baseUrl, { max: 1, onnotice: () => {} })
await admin.unsafe(`create database "${dbName}"`)
const url = new URL(baseUrl)
url.pathname = `/${dbName}`
const env = {
  ...process.env,
  DATABASE_URL: url.toString(),
  PORT: String(port),
  HOST: '127.0.0.1',
  CAL_API_TOKENS: token,
  KCORE_SCHEDULER_ENABLED: 'false',
  KCORE_LOG_LEVEL: 'warn',
}

let server: ChildProcess | undefined
try {
  const files = [
    '20200101.as-rel.txt.bz2',
    '20220601.as-rel.txt.bz2',
    '20240801.as-rel.txt.bz2',
    '20220601.as-rel.v6-stable.txt.bz2',
  ]
  execFileSync(process.execPath, [bin, 'ingest', ...files.map((f) => caida + f)], {
    env,
    stdio: 'inherit',
  })

  // LOAD_SERVER_HEAP_MB caps the server's V8 old space: a leak then ends in an out-of-memory
  // crash instead of a slowly growing resident size.
  const heapCap = process.env.LOAD_SERVER_HEAP_MB
  const nodeFlags = heapCap ? [`--max-old-space-size=${heapCap}`] : []
  server = spawn(process.execPath, [...nodeFlags, bin, 'serve'], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const base = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (i > 200) throw new Error('server did not start')
    if (
      await fetch(`${base}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break
    await new Promise((r) => setTimeout(r, 250))
  }
  // A calendar to read: 300 events over the next year in 10 categories.
  const now = Date.now()
  for (let i = 0; i < 300; i++) {
    const start = new Date(now + i * 29 * 3600_000)
    const fmt = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ')
    const res = await fetch(`${base}/cal/events/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: `Load test meetup ${i} ${i % 3 === 0 ? 'routing' : 'peering'}`,
        description: 'Sustained load check',
        start_date: fmt(start),
        end_date: fmt(new Date(start.getTime() + 2 * 3600_000)),
        categories: [`Category ${i % 10}`],
      }),
    })
    if (res.status !== 201)
      throw new Error(`event create failed: ${res.status} ${await res.text()}`)
  }

  const rss = () => {
    const status = readFileSync(`/proc/${server?.pid}/status`, 'utf8')
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
  }
  const requests = [
    { method: 'GET', path: '/api/trends/3356' },
    { method: 'GET', path: '/api/trends/15169?ip_version=ipv4&start_date=2021-01-01' },
    {
      method: 'POST',
      path: '/api/trends',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ asns: [3356, 174, 1299, 6939, 2914] }),
    },
    { method: 'GET', path: '/api/summary' },
    { method: 'GET', path: '/api/snapshots' },
    { method: 'GET', path: '/api/health' },
    { method: 'GET', path: '/cal/events/v1/events?per_page=10' },
    { method: 'GET', path: '/cal/events/v1/events?search=routing&per_page=5&page=2' },
    { method: 'GET', path: '/cal/events/v1/categories?per_page=20' },
  ] as autocannon.Request[]
  const run = (duration: number) => autocannon({ url: base, connections: 64, duration, requests })

  // Warm-up under the same load: JIT, connection pool, caches, and V8 growing its heap to
  // the size this load needs (what a leak check must not count). Measured: after 20 s the
  // resident size still climbs for another ~30 s, then stays flat; hence 60 s.
  await run(WARM_UP_SECONDS)
  const before = rss()
  // Sampled through the run: a leak climbs steadily, a settled heap moves about one level.
  const samples: number[] = []
  const sampler = setInterval(() => samples.push(Math.round(rss())), 10_000)
  const result = await Promise.resolve(run(seconds)).finally(() => clearInterval(sampler))
  const after = rss()
  const errors = result.errors + result.timeouts + result.non2xx
  const growth = ((after - before) / before) * 100
  console.log(`\nload: ${seconds} s, 64 connections, ${requests.length} request kinds, PostgreSQL`)
  console.table({
    'requests/s (mean)': result.requests.average,
    'latency p50 ms': result.latency.p50,
    'latency p99 ms': result.latency.p99,
    'total requests': result.requests.total,
    'errors (incl. non-2xx, timeouts)': errors,
    'RSS after warm-up MiB': Math.round(before),
    'RSS after run MiB': Math.round(after),
    'RSS every 10 s MiB': samples.join(' '),
    'RSS growth %': Math.round(growth * 10) / 10,
  })
  console.log(errors === 0 ? 'OK: no errors' : 'FAIL: errors seen')
  console.log(growth <= 10 ? 'OK: memory growth within 10%' : 'FAIL: memory grew more than 10%')
} finally {
  server?.kill('SIGTERM')
  await new Promise((r) => (server && server.exitCode === null ? server.once('exit', r) : r(null)))
  await admin.unsafe(`drop database if exists "${dbName}" with (force)`)
  await admin.end()
}
