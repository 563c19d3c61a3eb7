// `GET /api/health` and `GET /api/trends/3356` while `kcore serve` refreshes 12 months (issue #45
// item 5), beside the targets (p99 ≤ 50 ms, max ≤ 250 ms). Per round, a fresh server on a fresh
// embedded data directory with the sample data (or on DATABASE_URL's database, unseeded), a
// provider folder holding the last 12 serial-1 files, one `POST /api/refresh
// {ip_versions:["ipv4"]}`; meanwhile one probe at a time, each 20 ms after the last answered,
// alternating the two routes. 100 probes of the idle server first give the floor.
//   pnpm bench:refresh-health   (BENCH_ROUNDS=3; BENCH_PROFILE=1: CPU profiles of the server in
//   $TMPDIR/kcore-refresh-health-profiles/; BENCH_TRACE_GC=1: its --trace-gc on stdout)
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { quantile } from './quantile.js'

const TARGET = { p99: 50, max: 250 }
const TOKEN = 'bench-refresh-token'
const bin = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url))
const history = fileURLToPath(new URL('../../shared/data/caida/history/serial-1/', import.meta.url))
const months = readdirSync(history)
  .filter((name) => name.endsWith('.bz2'))
  .sort()
  .slice(-12)

const work = mkdtempSync(join(tmpdir(), 'kcore-refresh-health-'))
const provider = join(work, 'provider')
mkdirSync(provider)
for (const month of months) symlinkSync(join(history, month), join(provider, month))

/** Where BENCH_PROFILE=1 leaves the server's CPU profiles (one per thread and round). */
const PROFILES = join(tmpdir(), 'kcore-refresh-health-profiles')

function start(): Promise<{ child: ChildProcess; url: string }> {
  const profile = process.env.BENCH_PROFILE === '1'
  const child = spawn(
    process.execPath,
    [
      ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${PROFILES}`] : []),
      ...(process.env.BENCH_TRACE_GC ? ['--trace-gc'] : []),
      bin,
      'serve',
    ],
    {
      env: {
        ...process.env,
        KCORE_DATA_DIR: join(work, 'data'),
        KCORE_PORT: '0',
        KCORE_PROVIDER_URL: pathToFileURL(`${provider}/`).href,
        KCORE_ADMIN_TOKEN: TOKEN,
        KCORE_SCHEDULER_ENABLED: 'false',
        KCORE_SEED: 'true',
        KCORE_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', process.env.BENCH_TRACE_GC ? 'inherit' : 'ignore', 'pipe'],
    },
  )
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
    createInterface({ input: child.stderr! }).on('line', (line) => {
      const entry = JSON.parse(line) as { msg: string; url?: string }
      if (entry.msg === 'listening') resolve({ child, url: entry.url!.replace(/\/$/, '') })
    })
  })
}

/** Probes until `done` resolves (or `count` probes), one at a time; the times by route. */
async function probe(url: string, until: { done?: Promise<unknown>; count?: number }) {
  const times: Record<string, number[]> = { '/api/health': [], '/api/trends/3356': [] }
  let finished = false
  void until.done?.finally(() => (finished = true))
  for (let i = 0; !finished && (until.count === undefined || i < until.count); i++) {
    const route = i % 2 === 0 ? '/api/health' : '/api/trends/3356'
    const started = performance.now()
    const response = await fetch(url + route)
    await response.arrayBuffer()
    // 404 for AS3356 until its first snapshot is stored (PostgreSQL is not seeded).
    if (!response.ok && response.status !== 404)
      throw new Error(`${route} answered ${response.status}`)
    times[route]!.push(performance.now() - started)
    await sleep(20)
  }
  return times
}

function print(label: string, times: Record<string, number[]>) {
  for (const [route, samples] of Object.entries(times)) {
    const sorted = [...samples].sort((a, b) => a - b)
    const [p50, p99, max] = [quantile(sorted, 0.5), quantile(sorted, 0.99), sorted.at(-1) ?? NaN]
    const met = p99 <= TARGET.p99 && max <= TARGET.max ? 'met' : 'missed'
    console.log(
      `${label} ${route}: ${sorted.length} probes, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms (target p99 ≤ ${TARGET.p99}, max ≤ ${TARGET.max}: ${met})`,
    )
  }
}

// Rounds on fresh data directories; PostgreSQL keeps what a round stored (one round, a fresh
// database each run).
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (process.env.DATABASE_URL ? 1 : 3))
if (process.env.DATABASE_URL && ROUNDS !== 1) throw new Error('PostgreSQL: one round per database')
const idle: Record<string, number[]> = {}
const during: Record<string, number[]> = {}
const merge = (into: Record<string, number[]>, from: Record<string, number[]>) => {
  for (const [route, samples] of Object.entries(from)) (into[route] ??= []).push(...samples)
}
console.log(
  `${months[0]} … ${months.at(-1)}; database ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded'}; ${ROUNDS} rounds`,
)
try {
  for (let round = 1; round <= ROUNDS; round++) {
    rmSync(join(work, 'data'), { recursive: true, force: true })
    const { child, url } = await start()
    try {
      merge(idle, await probe(url, { count: 100 }))
      const started = performance.now()
      const refresh = fetch(`${url}/api/refresh`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ip_versions: ['ipv4'] }),
      }).then((r) => r.json() as Promise<{ ipv4: { snapshots_added: number; error?: string } }>)
      merge(during, await probe(url, { done: refresh }))
      const result = await refresh
      console.log(
        `round ${round}: ${result.ipv4.snapshots_added} snapshots added in ${((performance.now() - started) / 1000).toFixed(1)} s${result.ipv4.error ? `, error: ${result.ipv4.error}` : ''}`,
      )
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
  }
  if (process.env.BENCH_PROFILE === '1') console.log(`CPU profiles: ${PROFILES}`)
  print('idle', idle)
  print('during the refresh', during)
  console.log(
    `load average: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  )
} finally {
  rmSync(work, { recursive: true, force: true })
}
