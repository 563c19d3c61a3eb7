// Where an idle embedded database's memory goes, one fresh process per step (memory is never
// given back in a way a later step could measure): Node with @kcore/db imported; plus an empty
// worker thread; plus PGlite's WebAssembly compiled; an embedded database opened on a data
// directory and left idle (what `kcore serve` holds before any request); and the engine's own
// figures, from a worker made here that runs the same engine (`createPglite`) and reports its
// WebAssembly heap and its isolate's heap (that worker loads the engine's sources through tsx,
// which its heap includes). Then point queries and a scan on that database, so
// a memory setting is never bought with speed. The idle database's share is printed beside the
// 250 MiB target for the whole idle server.
//   pnpm build:changed && node --expose-gc --import tsx packages/db/bench/idle-memory.ts
//   (BENCH_ROWS=400000 rows in the table the queries read, about 3x the default shared buffers)
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import os, { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { type Kysely, sql } from 'kysely'
import type { NoTables } from '../src/index.js'

// The built package, as a server runs it: from the sources its worker would load tsx too.
const dist = new URL('../dist/index.js', import.meta.url)
if (!existsSync(dist)) throw new Error('build first: pnpm build:changed')
const { openPgliteDatabase } = (await import(dist.href)) as typeof import('../src/index.js')

const TARGET_MIB = 250
const ROWS = Number(process.env.BENCH_ROWS ?? 400_000)
const self = fileURLToPath(import.meta.url)
const step = process.argv[2]

type Figures = Record<string, string | number>
const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10

/** This process's memory after a full collection (this thread's heap; RSS of all threads). */
function usage(): Figures {
  globalThis.gc?.()
  const m = process.memoryUsage()
  return {
    rss: mib(m.rss),
    heapUsed: mib(m.heapUsed),
    external: mib(m.external),
    arrayBuffers: mib(m.arrayBuffers),
  }
}

/** The settings that size PGlite's memory, as the engine reports them. */
const SETTINGS = [
  'shared_buffers',
  'wal_buffers',
  'work_mem',
  'maintenance_work_mem',
  'temp_buffers',
]

async function runStep(name: string, dir: string): Promise<Figures> {
  if (name === 'node') return usage()
  if (name === 'worker') {
    const worker = new Worker('require("node:worker_threads").parentPort.postMessage(1)', {
      eval: true,
    })
    await new Promise((resolve) => worker.once('message', resolve))
    const figures = usage()
    await worker.terminate()
    return figures
  }
  if (name === 'wasm') {
    const { compilePgliteWasm } = await import('../src/create-pglite.js')
    const module = await compilePgliteWasm()
    const figures = usage()
    void module
    return figures
  }
  if (name === 'engine') return engineFigures(dir)
  if (name === 'open') {
    const database = await openPgliteDatabase(dir)
    try {
      await database.ping()
      // Idle: whatever the start left to collect is collected, in both threads' own time.
      await new Promise((resolve) => setTimeout(resolve, 2_000))
      const figures = usage()
      const { rows } = await sql<{ name: string; setting: string }>`
        select name, current_setting(name) as setting from unnest(${SETTINGS}::text[]) name`.execute(
        database.db,
      )
      for (const row of rows) figures[row.name] = row.setting
      return { ...figures, ...(await speed(database.db)) }
    } finally {
      await database.close()
    }
  }
  throw new Error(`unknown step ${name}`)
}

/** The engine's own figures, from inside the thread that runs it. */
async function engineFigures(dir: string): Promise<Figures> {
  const createPglite = new URL('../src/create-pglite.ts', import.meta.url).href
  const tsx = import.meta.resolve('tsx/esm/api')
  const code = `
    const { parentPort, workerData } = require('node:worker_threads')
    import(${JSON.stringify(tsx)})
      .then(({ tsImport }) => tsImport(${JSON.stringify(createPglite)}, workerData.from))
      .then(async ({ createPglite }) => {
        const pglite = createPglite({ dataDir: workerData.dir })
        await pglite.waitReady
        await pglite.query('select count(*) from t')
        globalThis.gc?.()
        const m = process.memoryUsage()
        parentPort.postMessage({
          wasmHeap: pglite.Module.HEAPU8.byteLength,
          heapUsed: m.heapUsed,
          external: m.external,
        })
        await pglite.close()
      })`
  const worker = new Worker(code, { eval: true, workerData: { dir, from: import.meta.url } })
  const reported = await new Promise<{ wasmHeap: number; heapUsed: number; external: number }>(
    (resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    },
  )
  const figures = usage()
  await new Promise((resolve) => worker.once('exit', resolve))
  return {
    rss: figures.rss!,
    'worker wasmHeap': mib(reported.wasmHeap),
    'worker heapUsed': mib(reported.heapUsed),
    'worker external': mib(reported.external),
  }
}

/** Median point-query and scan times on the bench table (rows far past the shared buffers). */
async function speed(db: Kysely<NoTables>): Promise<Figures> {
  const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!
  const time = async (run: () => Promise<unknown>) => {
    const started = performance.now()
    await run()
    return performance.now() - started
  }
  const point = (i: number) => sql`select m from t where i = ${1 + ((i * 7919) % ROWS)}`.execute(db)
  const scan = () => sql`select count(*), max(m) from t`.execute(db)
  for (let i = 0; i < 200; i++) await point(i)
  await scan()
  const points: number[] = []
  for (let i = 0; i < 3_000; i++) points.push(await time(() => point(i)))
  const scans: number[] = []
  for (let i = 0; i < 7; i++) scans.push(await time(scan))
  return {
    'point query p50 ms': Math.round(median(points) * 1000) / 1000,
    'scan p50 ms': Math.round(median(scans) * 10) / 10,
  }
}

if (step) {
  const figures = await runStep(step, process.argv[3]!)
  console.log(JSON.stringify(figures))
} else {
  const load = os.loadavg()
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, load average ${load.map((l) => l.toFixed(2)).join(' ')}; node ${process.version} (a shared machine: one run)`,
  )
  const dir = mkdtempSync(join(tmpdir(), 'kcore-idle-memory-'))
  try {
    const setup = await openPgliteDatabase(join(dir, 'data'))
    await sql`create table t as select i, md5(i::text) as m from generate_series(1, ${ROWS}) i`.execute(
      setup.db,
    )
    await sql`create index t_i on t (i)`.execute(setup.db)
    await setup.close()
    const results: Record<string, Figures> = {}
    for (const name of ['node', 'worker', 'wasm', 'engine', 'open']) {
      const out = execFileSync(
        process.execPath,
        [...process.execArgv, self, name, join(dir, 'data')],
        { encoding: 'utf8' },
      )
      results[name] = JSON.parse(out.trim().split('\n').at(-1)!)
    }
    console.table(results)
    const base = Number(results.node!.rss)
    const share = Number(results.open!.rss) - base
    console.log(
      `idle embedded database: ${share.toFixed(1)} MiB of RSS above Node with @kcore/db imported ` +
        `(${base} MiB here, with tsx running this script); target for the whole idle server: ${TARGET_MIB} MiB ` +
        `(${share <= TARGET_MIB ? 'within it' : 'over it'} on its own)`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
