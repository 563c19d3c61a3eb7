// Whole-history backfill: every file of a provider mirror (default: the real CAIDA serial-1
// IPv4 history, 317 files) stored by `syncFromProvider` into a fresh PostgreSQL database and
// a fresh PGlite one, each in its own process (so each peak RSS is its own), against the
// decode floor: `bzcat` of the same files one after another on one core. Ratios from one run.
//   pnpm bench:backfill
//   BENCH_FROM=2023-01 BENCH_DATABASES=postgres pnpm bench:backfill   (a slice, one database)
// The event-loop delay of the backfilling process (p99, max) is what a server doing the same
// refresh would add to every answer. PostgreSQL work happens in a throwaway database.
import { spawnSync } from 'node:child_process'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import os from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { type Database, openPgliteDatabase, openPostgresDatabase } from '@kcore/db'
import { createProvider } from '@kcore/engine'
import { createKcoreStore, syncFromProvider } from '@kcore/store'
import postgres from 'postgres'

const history = fileURLToPath(new URL('../../shared/data/caida/history/', import.meta.url))
const providerUrl = process.env.BENCH_PROVIDER_URL ?? pathToFileURL(history).href
const from = process.env.BENCH_FROM
const baseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const child = process.env.BENCH_CHILD as 'postgres' | 'pglite' | undefined

interface ChildResult {
  seconds: number
  added: number
  failures: number
  peakRssMiB: number
  loopP99Ms: number
  loopMaxMs: number
}

async function runChild(kind: 'postgres' | 'pglite'): Promise<ChildResult> {
  let database: Database
  let cleanup: () => Promise<void>
  if (kind === 'postgres') {
    const name = `kcore_bench_backfill_${process.pid}`
    const admin = postgres(baseUrl, { max: 1, onnotice: () => {} })
    await admin.unsafe(`create database ${name}`)
    const url = new URL(baseUrl)
    url.pathname = `/${name}`
    database = openPostgresDatabase(url.href)
    cleanup = async () => {
      await admin.unsafe(`drop database if exists ${name}`)
      await admin.end()
    }
  } else {
    const dir = await mkdtemp(join(os.tmpdir(), 'kcore-bench-backfill-'))
    database = await openPgliteDatabase(dir)
    cleanup = () => rm(dir, { recursive: true, force: true })
  }
  try {
    const store = createKcoreStore(database)
    await store.migrate()
    const loop = monitorEventLoopDelay({ resolution: 10 })
    loop.enable()
    const start = performance.now()
    const results = await syncFromProvider({
      store,
      provider: createProvider({ baseUrl: providerUrl }),
      ipVersions: ['ipv4'],
      from,
    })
    const seconds = (performance.now() - start) / 1000
    loop.disable()
    const ipv4 = results.ipv4!
    return {
      seconds,
      added: ipv4.added.length,
      failures: ipv4.failures.length,
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
      loopP99Ms: loop.percentile(99) / 1e6,
      loopMaxMs: loop.max / 1e6,
    }
  } finally {
    await database.close()
    await cleanup()
  }
}

if (child) {
  console.log(JSON.stringify(await runChild(child)))
  process.exit(0)
}

const folder = join(history, 'serial-1')
const files = (await readdir(folder))
  .filter((name) => /^\d{8}\.as-rel\.txt\.bz2$/.test(name))
  .filter((name) => !from || name.slice(0, 8) >= from.replaceAll('-', '').padEnd(8, '0'))
  .sort()
const load = os.loadavg()
console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, load average ${load.map((l) => l.toFixed(2)).join(' ')}`,
)
console.log(`node ${process.version}; ${files.length} files from ${providerUrl}\n`)

let floor = performance.now()
for (const name of files) {
  const run = spawnSync('bzcat', [join(folder, name)], { stdio: ['ignore', 'ignore', 'inherit'] })
  if (run.status !== 0) throw new Error(`bzcat ${name} failed`)
}
floor = (performance.now() - floor) / 1000
console.log(`decode floor (bzcat, one core, one file after another): ${floor.toFixed(1)} s`)

const databases = (process.env.BENCH_DATABASES ?? 'postgres,pglite').split(',')
const rows: string[] = []
for (const kind of databases) {
  const run = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_CHILD: kind },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const line = run.stdout.trim().split('\n').at(-1) ?? ''
  if (run.status !== 0 || !line.startsWith('{'))
    throw new Error(`${kind} run failed: ${run.stdout}`)
  const r = JSON.parse(line) as ChildResult
  rows.push(
    `| backfill into ${kind.padEnd(8)} | ${r.seconds.toFixed(1).padStart(6)} s | ${(r.seconds / floor).toFixed(2)}× | ${r.added} stored, ${r.failures} failed | ${r.peakRssMiB.toFixed(0)} MiB | ${r.loopP99Ms.toFixed(1)} / ${r.loopMaxMs.toFixed(0)} ms |`,
  )
  console.log(rows.at(-1))
}
console.log(`
| | time | vs the decode floor | snapshots | peak RSS | event-loop delay p99 / max |
|---|---|---|---|---|---|
| \`bzcat\` of the ${files.length} files, one core, one after another | ${floor.toFixed(1)} s | 1× | | | |
${rows.join('\n')}`)
