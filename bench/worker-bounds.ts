// The decode workers' time and memory bounds, each figure beside its target, measured in this
// one run (the tests in packages/engine/test/decompose-worker.*.test.ts assert the behaviour:
// the loop turns during a decode, an abort or a deadline rejects and ends the workers, a bomb
// is refused at its cap):
//   - the longest event-loop gap of the calling thread while a real 2024 file decodes in a
//     worker (target < 100 ms; the same decode on the calling thread holds it ~1 s);
//   - from abort() to the rejection, one worker and a split over two (target < 150 ms);
//   - from the start to the rejection under AbortSignal.timeout(100) (target < 250 ms);
//   - RSS growth while a split bzip2 bomb is refused at the default 128 MiB cap (target < 512 MiB).
// Best and median of BENCH_ROUNDS (default 5).
//   pnpm bench:worker-bounds
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { DecomposePool } from '@kcore/engine'
import { bzip2Bomb } from '../packages/engine/test/bzip2-bomb.js'
import { watchEventLoop } from '../packages/engine/test/event-loop-watch.js'

const file = fileURLToPath(
  new URL('../../shared/data/caida/20240801.as-rel.txt.bz2', import.meta.url),
)
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const bytes = new Uint8Array(await readFile(file))
const one = new DecomposePool({ size: 1 })
const two = new DecomposePool({ size: 2 })
await Promise.all([one.decompose(bytes), two.decompose(bytes)]) // workers started and warm

const figures = {
  gap: [] as number[],
  abort: [] as number[],
  splitAbort: [] as number[],
  deadline: [] as number[],
}
for (let round = 0; round < rounds; round++) {
  figures.gap.push((await watchEventLoop(() => one.decompose(bytes))).gap)
  for (const [pool, into] of [
    [one, figures.abort],
    [two, figures.splitAbort],
  ] as const) {
    const controller = new AbortController()
    const running = pool.decompose(bytes, { signal: controller.signal }).catch(() => {})
    while (pool.workers.busy < pool.workers.started) await new Promise((r) => setImmediate(r))
    await new Promise((r) => setTimeout(r, 100)) // well into the decode
    const start = performance.now()
    controller.abort(new Error('stop'))
    await running
    into.push(performance.now() - start)
  }
  const start = performance.now()
  await one.decompose(bytes, { signal: AbortSignal.timeout(100) }).catch(() => {})
  figures.deadline.push(performance.now() - start)
}
const bomb = await watchEventLoop(() => two.decompose(bzip2Bomb()).catch((e: unknown) => e))
await Promise.all([one.close(), two.close()])

const line = (label: string, values: number[], target: number, unit = 'ms') => {
  const sorted = [...values].sort((a, b) => a - b)
  const best = sorted[0]!
  const median = sorted[Math.floor(sorted.length / 2)]!
  const ok = median < target ? 'within' : 'OVER'
  console.log(
    `${label.padEnd(52)} best ${best.toFixed(1)} ${unit}, median ${median.toFixed(1)} ${unit}  (target < ${target} ${unit}: ${ok})`,
  )
}
console.log(
  `20240801.as-rel.txt.bz2, ${rounds} rounds, load ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`,
)
line('event-loop gap while a worker decodes', figures.gap, 100)
line('abort() to rejection, one worker', figures.abort, 150)
line('abort() to rejection, split over two workers', figures.splitAbort, 150)
line('start to rejection under AbortSignal.timeout(100)', figures.deadline, 250)
line('RSS growth while a split bomb is refused (128 MiB cap)', [bomb.growth / 2 ** 20], 512, 'MiB')
