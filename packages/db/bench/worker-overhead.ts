// What running PGlite in a worker thread costs and saves per statement, in one run: the same
// statements on an engine in this thread (what `@kcore/db` did before) and on the worker engine
// `openPgliteDatabase` uses (rows cloned as arrays beside their column names), beside the two
// message formats it was chosen against, measured through a worker made here: rows cloned as
// one object each, and PGlite's raw protocol answer transferred and parsed in this thread.
// "This thread busy" is what the serving thread spends per statement (event-loop utilisation):
// the time no request can be answered.
//   node --import tsx --conditions=source packages/db/bench/worker-overhead.ts
//   (BENCH_POINTS=3000 point queries, BENCH_BIG=20 statements of 20,000 rows per engine)
import { createRequire } from 'node:module'
import os from 'node:os'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { parse, protocol } from '@electric-sql/pglite'
import { createPglite } from '../src/create-pglite.js'
import type { EngineResult } from '../src/pglite-engine.js'
import { startWorkerEngine } from '../src/pglite-worker-engine.js'

const points = Number(process.env.BENCH_POINTS ?? 3000)
const bigRuns = Number(process.env.BENCH_BIG ?? 20)
const ROWS = 20_000
const SETUP = `create table t (id int8 primary key, asn int8, d date, name text, v float8);
  insert into t select i, i * 7, date '2020-01-01' + (i % 300), 'name ' || i, i / 3.0
  from generate_series(1, ${ROWS}) i`
const POINT = 'select id, asn, d, name, v from t where id = $1'
const BIG = `select id, asn, d, name, v from t where id <= ${ROWS}`

type Query = (text: string, parameters: unknown[]) => Promise<{ rows: unknown[] }>

const inThread = createPglite({})
await inThread.exec(SETUP)
const worker = await startWorkerEngine({}, { notify() {}, lost() {} })
await worker.query(SETUP.split(';')[0]!, [])
await worker.query(SETUP.split(';')[1]!, [])
const alternatives = await alternativeWorker()

const engines: [string, Query][] = [
  ['in this thread (before)', (text, parameters) => inThread.query(text, parameters)],
  ['worker, rows as arrays (chosen)', (text, parameters) => worker.query(text, parameters)],
  [
    'worker, rows as objects',
    (text, parameters) => alternatives.query('objects', text, parameters),
  ],
  [
    'worker, raw protocol parsed here',
    (text, parameters) => alternatives.query('raw', text, parameters),
  ],
]

const load = os.loadavg()
console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, load average ${load.map((l) => l.toFixed(2)).join(' ')}; node ${process.version}`,
)
console.log(
  '\n| engine | point query: round trips/s | this thread busy per point query | 20,000 rows: ms per statement | this thread busy per 20,000 rows |',
)
console.log('|---|---|---|---|---|')
for (const [name, query] of engines) {
  const point = await measure(points, (i) => query(POINT, [1 + (i % ROWS)]), 1)
  const big = await measure(bigRuns, () => query(BIG, []), ROWS)
  console.log(
    `| ${name} | ${Math.round(1000 / point.ms)} | ${point.busy.toFixed(3)} ms | ${big.ms.toFixed(0)} | ${big.busy.toFixed(1)} ms |`,
  )
}
console.log(
  `load average after: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
)
await inThread.close()
await worker.close()
await alternatives.close()

/** Mean wall time and mean time this thread was busy per call, after a warm-up. */
async function measure(
  runs: number,
  call: (i: number) => Promise<{ rows: unknown[] }>,
  rows: number,
) {
  for (let i = 0; i < Math.min(20, runs); i++) await call(i)
  const before = performance.eventLoopUtilization()
  const start = performance.now()
  for (let i = 0; i < runs; i++) {
    const result = await call(i)
    if (result.rows.length !== rows)
      throw new Error(`expected ${rows} rows, got ${result.rows.length}`)
  }
  const ms = (performance.now() - start) / runs
  const busy = performance.eventLoopUtilization(before).active / runs
  return { ms, busy }
}

/**
 * A worker with the formats not chosen: `objects` clones PGlite's row objects; `raw` runs the
 * extended protocol through `execProtocolRaw` and transfers the answer's bytes, which this
 * thread parses with PGlite's own parser and type parsers (what it did in-thread).
 */
async function alternativeWorker() {
  const require = createRequire(import.meta.url)
  const pgliteUrl = pathToFileURL(require.resolve('@electric-sql/pglite')).href.replace(
    /index\.cjs$/,
    'index.js',
  )
  const code = `
    const { parentPort } = require('node:worker_threads')
    import(${JSON.stringify(pgliteUrl)}).then(async ({ PGlite, protocol }) => {
      const pg = new PGlite({ parsers: { 20: Number, 1082: (v) => v } })
      await pg.exec(${JSON.stringify(SETUP)})
      const { serialize } = protocol
      parentPort.on('message', async ({ id, mode, text, parameters }) => {
        if (mode === 'objects') {
          const result = await pg.query(text, parameters)
          parentPort.postMessage({ id, rows: result.rows })
          return
        }
        const bytes = await pg.runExclusive(async () => {
          await pg.execProtocolRaw(serialize.parse({ text }))
          const values = parameters.map((p) => (p === null ? null : String(p)))
          const answer = await pg.execProtocolRaw(
            new Uint8Array([...serialize.bind({ values }), ...serialize.describe({ type: 'P' }),
              ...serialize.execute({}), ...serialize.sync()]))
          return answer.slice()
        })
        parentPort.postMessage({ id, bytes }, [bytes.buffer])
      })
      parentPort.postMessage({ ready: true })
    })`
  const thread = new Worker(code, { eval: true })
  await new Promise((resolve) => thread.once('message', resolve))
  const pending = new Map<number, (message: { rows?: unknown[]; bytes?: Uint8Array }) => void>()
  thread.on('message', (message) => {
    pending.get(message.id)?.(message)
    pending.delete(message.id)
  })
  const parsers = inThread.parsers
  let next = 0
  return {
    query(mode: 'objects' | 'raw', text: string, parameters: unknown[]) {
      return new Promise<EngineResult<unknown>>((resolve) => {
        const id = ++next
        pending.set(id, (message) => {
          if (message.rows) return resolve({ rows: message.rows })
          const messages: Parameters<typeof parse.parseResults>[0] = []
          new protocol.Parser().parse(message.bytes!, (m) => messages.push(m))
          resolve(parse.parseResults(messages, parsers)[0] as EngineResult<unknown>)
        })
        thread.postMessage({ id, mode, text, parameters })
      })
    },
    close: () => thread.terminate(),
  }
}
