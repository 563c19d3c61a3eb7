// @kcore/engine what-if benchmark, every figure measured in this one run on the same machine:
//   whatIf (core maintenance), one AS removed (AS 174)  vs  a full recomputation of the same
//   (the changed graph's CSR and its decomposition) and one decomposition of the graph; and
//   with the shell order a worker keeps for a graph asked about again (and its making)
//   decodeGraphLinks of the snapshot's stored links   vs  one decomposition
//   typed-array bytes a whatIf allocates              vs  one decomposition's
//   the whole serial-1 history: bytes of the stored links, and decode + whatIf of each snapshot
// The rows take turns in every round (best and median of BENCH_ROUNDS, default 21, after a
// warm-up), so a busy neighbour slows all alike.
//   pnpm bench:what-if
//   BENCH_FILE=20130201.as-rel.txt.bz2 BENCH_ASN=3356 BENCH_HISTORY=0 pnpm bench:what-if
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import {
  type AsGraph,
  type CoreDecomposition,
  coreDecomposition,
  DecomposePool,
  decodeGraphLinks,
  encodeGraphLinks,
  type GraphChange,
  parseAsRel,
  whatIf,
} from '@kcore/engine'
import { cutLinks } from '../packages/engine/src/cut-links.js'
import { recomputeCores } from '../packages/engine/src/recompute-cores.js'
import { resolveGraphChange } from '../packages/engine/src/resolve-graph-change.js'
import { shellOrder } from '../packages/engine/src/shell-order.js'
import { quantile } from './quantile.js'

const caida = fileURLToPath(new URL('../../shared/data/caida/', import.meta.url))
const history = `${caida}history/serial-1/`
const file = process.env.BENCH_FILE ?? '20240801.as-rel.txt.bz2'
const asn = Number(process.env.BENCH_ASN ?? 174)
const rounds = Number(process.env.BENCH_ROUNDS ?? 21)

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, load average ${load()}; node ${process.version}`,
)

/** A full recomputation of `change`: what whatIf falls back to, timed on its own. */
function recompute(graph: AsGraph, change: GraphChange): Uint32Array {
  const resolved = resolveGraphChange(graph, change)
  return recomputeCores(graph, resolved, cutLinks(graph, resolved.removedLinks))
}

/**
 * Bytes of ArrayBuffers (typed arrays) and JS heap `work` allocates. Run in a child process
 * started with `--expose-gc` and a new space too large to fill, so that no collection runs
 * during the call: a typed array is freed only by one, so the growth is all it allocated.
 */
async function allocated(work: () => unknown): Promise<{ buffers: number; heap: number }> {
  const gc = (globalThis as { gc?: () => void }).gc!
  // backing stores are freed by a background sweeper after the collection: let it finish
  for (let i = 0; i < 3; i++) {
    gc()
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const before = process.memoryUsage()
  const kept = work()
  const after = process.memoryUsage()
  if (kept === undefined) throw new Error('nothing computed')
  return {
    buffers: after.arrayBuffers - before.arrayBuffers,
    heap: after.heapUsed - before.heapUsed,
  }
}

const graph = await parseAsRel(await readFile(`${caida}${file}`))
const before: CoreDecomposition = coreDecomposition(graph)
const top = Array.from(graph.asns).filter((_, i) => before.shells[i] === before.maxShell)
const blob = encodeGraphLinks(graph)
const order = shellOrder(graph, before.shells)
const removal: GraphChange = { removeAsns: [asn] }
const linkRemoval: GraphChange = { removeLinks: [[top[0]!, top[1]!]] }
const linkAddition: GraphChange = { addLinks: [[top[0]!, graph.asns.at(-1)!]] }
if (process.env.BENCH_MEMORY === '1') {
  const memory = {
    whatIf: await allocated(() => whatIf(graph, removal, { before })),
    withDecomposition: await allocated(() => whatIf(graph, removal)),
    linkRemoval: await allocated(() => whatIf(graph, linkRemoval, { before })),
    decomposition: await allocated(() => coreDecomposition(graph)),
    graph: graph.asns.byteLength + graph.offsets.byteLength + graph.neighbors.byteLength,
  }
  console.log(JSON.stringify(memory))
  process.exit(0)
}
const answer = whatIf(graph, removal, { before })
console.log(
  `${file}: ${graph.asns.length} ASes, ${graph.linkCount} links, max shell ${before.maxShell}; ` +
    `removing AS ${asn} moves ${answer.changes.length} ASes, max shell ${answer.maxShell}\n`,
)

const rows: [string, () => unknown][] = [
  [`whatIf, AS ${asn} removed (decomposition given)`, () => whatIf(graph, removal, { before })],
  [`full recomputation, AS ${asn} removed`, () => recompute(graph, removal)],
  [`whatIf, AS ${asn} removed (decomposition computed)`, () => whatIf(graph, removal)],
  ['whatIf, one top-shell link removed', () => whatIf(graph, linkRemoval, { before })],
  ['full recomputation, one top-shell link removed', () => recompute(graph, linkRemoval)],
  ['whatIf, one link added (top shell to a stub)', () => whatIf(graph, linkAddition, { before })],
  ['one decomposition of the graph', () => coreDecomposition(graph)],
  ['decodeGraphLinks (the stored links → the graph)', () => decodeGraphLinks(blob)],
  ['encodeGraphLinks', () => encodeGraphLinks(graph)],
  [
    `whatIf, AS ${asn} removed (decomposition and shell order given)`,
    () => whatIf(graph, removal, { before, order }),
  ],
  [
    'shellOrder (a worker makes it once per graph asked again)',
    () => shellOrder(graph, before.shells),
  ],
]
const times = rows.map((): number[] => [])
for (const [, work] of rows) work() // warm-up
for (let round = 0; round < rounds; round++) {
  for (const [k, [, work]] of rows.entries()) {
    const start = performance.now()
    work()
    times[k]!.push(performance.now() - start)
  }
}
const best = (k: number) => Math.min(...times[k]!)
const median = (k: number) =>
  quantile(
    [...times[k]!].sort((a, b) => a - b),
    0.5,
  )
const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`
const decomposition = best(6)
const targets = [
  `≤ 30 ms (the route's p50 over HTTP); ${(best(0) / best(1)).toFixed(2)}× the recomputation`,
  '',
  '',
  `${(best(3) / best(4)).toFixed(3)}× the recomputation`,
  '',
  '',
  '',
  `≤ one decomposition: ${(best(7) / decomposition).toFixed(2)}×`,
  '',
  `what the HTTP route runs from the second question; ${(best(9) / best(1)).toFixed(2)}× the recomputation`,
  '',
]
console.log('| step | best | median | target |')
console.log('|---|---:|---:|---|')
rows.forEach(([name], k) => {
  console.log(`| ${name} | ${ms(best(k))} | ${ms(median(k))} | ${targets[k]} |`)
})

const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
  env: {
    ...process.env,
    BENCH_MEMORY: '1',
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --expose-gc --max-semi-space-size=256`,
  },
  encoding: 'utf8',
})
const memory = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Record<
  'whatIf' | 'withDecomposition' | 'linkRemoval' | 'decomposition',
  { buffers: number; heap: number }
> & { graph: number }
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`
const one = memory.decomposition.buffers
const times1 = (bytes: number) => `${(bytes / one).toFixed(2)}×`
console.log(
  `\nmemory, typed arrays one call allocates (JS heap beside), against one decomposition's ${mb(one)} (target ≤ 2×):\n` +
    `  whatIf, AS ${asn} removed: ${mb(memory.whatIf.buffers)} (${mb(memory.whatIf.heap)}) = ${times1(memory.whatIf.buffers)}; ` +
    `with its decomposition: ${mb(memory.withDecomposition.buffers)} = ${times1(memory.withDecomposition.buffers)}; ` +
    `one top-shell link removed: ${mb(memory.linkRemoval.buffers)} = ${times1(memory.linkRemoval.buffers)}\n` +
    `  with the graph held (${mb(memory.graph)}): whatIf ${mb(memory.graph + memory.whatIf.buffers)} against a decomposition's ` +
    `${mb(memory.graph + one)} = ${((memory.graph + memory.whatIf.buffers) / (memory.graph + one)).toFixed(2)}×`,
)
console.log(
  `stored links of ${file}: ${blob.length} bytes (${(blob.length / graph.linkCount).toFixed(2)} a link)`,
)

if (process.env.BENCH_HISTORY !== '0') {
  const files = readdirSync(history)
    .filter((name) => name.endsWith('.bz2'))
    .sort()
  const pool = new DecomposePool()
  let bytes = 0
  let bz2 = 0
  let decode = 0
  let ask = 0
  let largest = 0
  // two files decoded at a time (one per worker), each encoded, then decoded and asked
  for (let i = 0; i < files.length; i += pool.size) {
    const batch = files.slice(i, i + pool.size)
    const decoded = await Promise.all(
      batch.map(async (name) => {
        const raw = new Uint8Array(await readFile(history + name))
        bz2 += raw.length
        return pool.decompose(raw)
      }),
    )
    for (const { graph: snapshot, decomposition: shells } of decoded) {
      const stored = encodeGraphLinks(snapshot)
      bytes += stored.length
      largest = Math.max(largest, stored.length)
      let start = performance.now()
      const read = decodeGraphLinks(stored)
      decode += performance.now() - start
      start = performance.now()
      whatIf(read, removal, { before: shells })
      ask += performance.now() - start
    }
  }
  await pool.close()
  console.log(
    `\nthe whole history (${files.length} serial-1 files, ${mb(bz2)} of bzip2): stored links ${mb(bytes)} ` +
      `(${mb(bytes / files.length)} a snapshot on average, the largest ${mb(largest)}); ` +
      `decode + whatIf(AS ${asn}) of every snapshot ${(decode / 1000).toFixed(2)} + ${(ask / 1000).toFixed(2)} s ` +
      '(target for streaming the whole history: ≤ 15 s)',
  )
}
console.log(`load average at the end: ${load()}`)
