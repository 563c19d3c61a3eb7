// @kcore/engine benchmark, every figure measured in this one run on the same machine:
//   bytes -> shell indices (decomposeInWorker: what a refresh runs, workers included)
//                                                      vs  `bzcat FILE > /dev/null`
//   parse + decompress (parseAsRel on the .bz2 bytes, calling thread)  vs  the same bzcat
//   coreDecomposition (CSR, Batagelj–Zaversnik)       vs  graphology-cores coreNumber
//                                                      vs  NetworkX core_number (python3, when importable)
// Best of BENCH_ROUNDS (default 7) after one warm-up; graph building is never timed for either side.
// bzcat runs from a helper process (bench/bzcat-timer.ts), never forked from this one.
//   pnpm bench:engine
//   BENCH_ROUNDS=9 BENCH_FILES=20130201.as-rel.txt.bz2,20240801.as-rel.txt.bz2 pnpm bench:engine
//   BENCH_WORKERS=1,2 pnpm bench:engine   (bytes -> shell indices on pools of 1 and 2 workers)
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import os from 'node:os'
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { coreDecomposition, DecomposePool, parseAsRel, toGraph } from '@kcore/engine'
import type Graph from 'graphology'
import { coreNumber } from 'graphology-cores'
import { startBzcatTimer } from './bzcat-timer.js'

const caida = fileURLToPath(new URL('../../shared/data/caida/', import.meta.url))
const rounds = Number(process.env.BENCH_ROUNDS ?? 7)
const largest = ['20240101.as-rel2.txt.bz2', '20240801.as-rel.txt.bz2'].find((f) =>
  existsSync(caida + f),
)
const files = process.env.BENCH_FILES?.split(',') ?? ['20130201.as-rel.txt.bz2', largest!]
// pool sizes timed for bytes -> shell indices (default: one pool sized to the machine, as
// decomposeInWorker uses); each pool's rows take turns with bzcat in the same rounds
const poolSizes = (process.env.BENCH_WORKERS ?? String(os.availableParallelism()))
  .split(',')
  .map(Number)
const pools = poolSizes.map((size) => new DecomposePool({ size }))
const referenceCores = coreNumber as unknown as (graph: Graph) => Record<string, number>

// NetworkX: parse the file in python, then time core_number alone (best of `rounds`).
const networkxScript = `
import bz2, sys, time
import networkx as nx
g = nx.Graph()
with bz2.open(sys.argv[1], 'rt') as f:
    for line in f:
        if line.startswith('#') or not line.strip():
            continue
        a, b = line.split('|')[:2]
        g.add_edge(int(a), int(b))
g.remove_edges_from(list(nx.selfloop_edges(g)))
best = float('inf')
for _ in range(int(sys.argv[2])):
    t = time.perf_counter()
    core = nx.core_number(g)
    best = min(best, time.perf_counter() - t)
print(best * 1000, max(core.values()))
`

function best(times: number[]): number {
  return Math.min(...times)
}

async function time<T>(fn: () => T | Promise<T>): Promise<number> {
  const start = performance.now()
  await fn()
  return performance.now() - start
}

function hasNetworkx(): boolean {
  return spawnSync('python3', ['-c', 'import networkx'], { stdio: 'ignore' }).status === 0
}

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(0)).padStart(7)
const ratio = (r: number) => `${r.toFixed(r < 10 ? 2 : 0)}×`.padStart(7)

const load = os.loadavg()
console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, load average ${load.map((l) => l.toFixed(2)).join(' ')}`,
)
console.log(`node ${process.version}, best of ${rounds} rounds after a warm-up\n`)
// Streaming (first, on a fresh heap): a large generated text (never materialised) read from a
// web stream; the RSS growth shows the text is not held whole (only the pairs and the CSR are).
const streamLines = Number(process.env.BENCH_STREAM_LINES ?? 8_000_000)
{
  const encoder = new TextEncoder()
  let produced = 0
  let textBytes = 0
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (produced >= streamLines) return controller.close()
      let text = ''
      for (let i = 0; i < 4096 && produced < streamLines; i++, produced++) {
        // ~200k ASes, a power-law-ish degree spread, serial-2 lines
        const a = (produced * 7919) % 200_003
        const b = Math.floor(200_003 / (1 + (produced % 997)))
        text += `${a}|${b}|${produced % 3 === 0 ? -1 : 0}|bgp\n`
      }
      const bytes = encoder.encode(text)
      textBytes += bytes.length
      controller.enqueue(bytes)
    },
  })
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 5)
  const start = performance.now()
  // Far past the default decompressed-size cap on purpose: this measures streaming memory.
  const graph = await parseAsRel(stream, { maxDecompressedBytes: Number.POSITIVE_INFINITY })
  const elapsed = performance.now() - start
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage().rss)
  const mb = (n: number) => `${(n / 1e6).toFixed(0)} MB`
  console.log(
    `streaming: ${mb(textBytes)} of generated text (${streamLines} lines, ${graph.asns.length} ASes, ${graph.linkCount} links) parsed from a web stream in ${(elapsed / 1000).toFixed(1)} s; RSS growth at most ${mb(peak - before)} (sampled while reading and after the CSR build; the CSR itself: ${mb(graph.asns.byteLength + graph.offsets.byteLength + graph.neighbors.byteLength)})\n`,
  )
}

const networkx = hasNetworkx()
// bzcat is timed by a helper process: a fork of this one would slow the next decompose
const bzcatTimer = startBzcatTimer()
const rows: string[][] = []

for (const file of files) {
  const path = caida + file
  const bytes = new Uint8Array(await readFile(path))

  // bzcat, the worker path and the parser take turns, so a busy neighbour slows all alike
  const bzcat: number[] = []
  const parse: number[] = []
  const whole: number[][] = pools.map(() => [])
  let graph = await parseAsRel(bytes)
  await bzcatTimer.time(path)
  for (const pool of pools) await pool.decompose(bytes) // starts and warms the workers
  for (let i = 0; i < rounds; i++) {
    bzcat.push(await bzcatTimer.time(path))
    for (const [k, pool] of pools.entries()) {
      whole[k]!.push(await time(() => pool.decompose(bytes)))
    }
    parse.push(
      await time(async () => {
        graph = await parseAsRel(bytes)
      }),
    )
  }
  const decompose: number[] = []
  let decomposition = coreDecomposition(graph)
  for (let i = 0; i < rounds; i++) {
    decompose.push(await time(() => (decomposition = coreDecomposition(graph))))
  }
  const reference = toGraph(graph)
  const graphology: number[] = []
  referenceCores(reference)
  for (let i = 0; i < Math.min(rounds, 3); i++) {
    graphology.push(await time(() => referenceCores(reference)))
  }
  let networkxMs = Number.NaN
  if (networkx) {
    const [ms, max] = execFileSync('python3', [
      '-c',
      networkxScript,
      path,
      String(Math.min(rounds, 3)),
    ])
      .toString()
      .trim()
      .split(' ')
      .map(Number) as [number, number]
    if (max !== decomposition.maxShell)
      throw new Error(`NetworkX max ${max} != ${decomposition.maxShell}`)
    networkxMs = ms
  }
  console.log(
    `${file}: ${graph.asns.length} ASes, ${graph.linkCount} links, max shell ${decomposition.maxShell}`,
  )
  const p = best(parse)
  const d = best(decompose)
  rows.push(
    ...pools.map((pool, k) => {
      const w = best(whole[k]!)
      return [
        file,
        `bytes → shell indices (${pool.size} worker${pool.size === 1 ? '' : 's'})`,
        fmt(w),
        `bzcat ${fmt(best(bzcat))}`,
        ratio(w / best(bzcat)),
        '≤ 1.0×',
      ]
    }),
    [file, 'parse+decompress', fmt(p), `bzcat ${fmt(best(bzcat))}`, ratio(p / best(bzcat)), '≤ 3×'],
    [
      file,
      'core decomposition',
      fmt(d),
      `graphology ${fmt(best(graphology))}`,
      ratio(best(graphology) / d),
      '≥ 10× faster',
    ],
    ...(networkx
      ? [
          [
            file,
            'core decomposition',
            fmt(d),
            `NetworkX ${fmt(networkxMs)}`,
            ratio(networkxMs / d),
            'faster',
          ],
        ]
      : []),
  )
}

console.log('\n| file | step | engine ms | reference ms | ratio | target |')
console.log('|---|---|---:|---:|---:|---|')
for (const row of rows) console.log(`| ${row.join(' | ')} |`)
if (!networkx) console.log('\n(NetworkX not importable by python3: skipped)')
console.log(
  '\nratio: bytes → shell indices and parse+decompress = engine / bzcat (lower is better); decomposition = reference / engine (higher is better)',
)
console.log(
  `bytes → shell indices: DecomposePool.decompose (what decomposeInWorker runs; a bzip2 file split across the pool's workers), one thread for bzcat`,
)
bzcatTimer.close()

// The thread that answers requests while workers decode a 12-month refresh (issue #45 item 5):
// the last 12 serial-1 files, two at a time (a refresh's lookahead), on a heap the size of a
// server's read models (BENCH_HEAP_MB of small objects); its event-loop delay and its garbage
// collections, with the whole graph sent back (decompose) and with the links encoded in the
// worker (decomposeToLinks: what a store needs).
if (process.env.BENCH_REFRESH !== '0') {
  const history = `${caida}history/serial-1/`
  const months = readdirSync(history)
    .filter((name) => name.endsWith('.bz2'))
    .sort()
    .slice(-12)
  const snapshots = await Promise.all(
    months.map(async (m) => new Uint8Array(await readFile(history + m))),
  )
  const heapMb = Number(process.env.BENCH_HEAP_MB ?? 300)
  const heap = Array.from({ length: heapMb * 7_000 }, (_, i) => ({
    i,
    key: String(i),
    pair: [i, i],
  }))
  const pool = pools.at(-1)!
  const refresh = async (way: 'decompose' | 'decomposeToLinks') => {
    const pauses: number[] = []
    const gcs = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) pauses.push(entry.duration)
    })
    gcs.observe({ entryTypes: ['gc'] })
    const delay = monitorEventLoopDelay({ resolution: 5 })
    delay.enable()
    const start = performance.now()
    let next = 0
    let done = 0
    await Promise.all(
      [0, 1].map(async () => {
        // each result dropped once received, as a store drops it once stored
        while (next < snapshots.length) if (await pool[way](snapshots[next++]!)) done++
      }),
    )
    const elapsed = performance.now() - start
    delay.disable()
    await new Promise((resolve) => setTimeout(resolve, 20))
    gcs.disconnect()
    const ms = (ns: number) => (ns / 1e6).toFixed(1)
    console.log(
      `  ${way}: ${(elapsed / 1000).toFixed(1)} s; event-loop delay p50 ${ms(delay.percentile(50))}, p99 ${ms(delay.percentile(99))}, max ${ms(delay.max)} ms (target p99 ≤ 50, max ≤ 250); ` +
        `${pauses.length} collections, ${pauses.reduce((a, b) => a + b, 0).toFixed(0)} ms, the longest ${Math.max(0, ...pauses).toFixed(0)} ms (${done} snapshots)`,
    )
  }
  console.log(
    `\nthe main thread while ${pool.size} workers decode ${months[0]} … ${months.at(-1)} (${heap.length} objects on the heap, ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB used):`,
  )
  await pool.decompose(snapshots[0]!) // warm
  for (const way of [
    'decompose',
    'decomposeToLinks',
    'decompose',
    'decomposeToLinks',
    'decompose',
    'decomposeToLinks',
  ] as const) {
    await refresh(way)
  }
}
for (const pool of pools) await pool.close()
console.log(
  `load average at the end: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
)
