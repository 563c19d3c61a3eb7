// Times `bzcat FILE > /dev/null` from a helper process, so the benchmark's own process never
// forks while it measures. A fork write-protects every page of the forking process until the
// child execs; the engine's workers then fault their pages back in (WebAssembly memory, heaps):
// seen here as ~10,000 extra minor faults and ~100 ms added to the decompose that followed each
// bzcat spawned from the benchmark process (20240101.as-rel2: 270–290 ms after a bzcat, 160–
// 190 ms after a pause of the same length). The helper is a small idle node process: its own
// forks cost it nothing worth counting, and the time is taken there, around the child alone.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'

const helper = `
const { execFileSync } = require('node:child_process')
require('node:readline').createInterface({ input: process.stdin }).on('line', (path) => {
  const start = performance.now()
  execFileSync('sh', ['-c', 'bzcat "$0" > /dev/null', path])
  process.stdout.write((performance.now() - start) + '\\n')
})`

/** A helper process that times `bzcat` of one file per call, one call at a time. */
export function startBzcatTimer() {
  const child = spawn(process.execPath, ['-e', helper], { stdio: ['pipe', 'pipe', 'inherit'] })
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  return {
    /** Milliseconds of `bzcat path > /dev/null`, shell start included, as measured there. */
    async time(path: string): Promise<number> {
      child.stdin.write(`${path}\n`)
      const { value, done } = await lines.next()
      if (done) throw new Error('the bzcat timer exited')
      return Number(value)
    },
    close() {
      child.stdin.end()
    },
  }
}
