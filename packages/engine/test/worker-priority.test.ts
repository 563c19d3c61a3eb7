import { readdir, readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { DecomposePool } from '../src/index.js'

// Decoding is background work: a decode worker lowers its own thread's priority, so the thread
// answering requests and the database's win the cores during a refresh; the process keeps its own.

const FILE = new URL('../../../../shared/data/caida/19980101.as-rel.txt.bz2', import.meta.url)

/** Each thread of this process with its nice value (field 19 of /proc/self/task/TID/stat). */
async function niceByThread(): Promise<Map<number, number>> {
  const threads = new Map<number, number>()
  for (const tid of await readdir('/proc/self/task')) {
    const stat = await readFile(`/proc/self/task/${tid}/stat`, 'utf8').catch(() => '')
    // The command sits in parentheses and may hold spaces: count the fields after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (fields.length > 16) threads.set(Number(tid), Number(fields[16]))
  }
  return threads
}

describe.skipIf(process.platform !== 'linux')('decode worker priority', () => {
  it('runs the decode worker at nice 10 and leaves the rest of the process at its own', async () => {
    const before = await niceByThread()
    const own = before.get(process.pid)
    const pool = new DecomposePool({ size: 1, idleMs: 60_000 })
    try {
      const { decomposition } = await pool.decompose(new Uint8Array(await readFile(FILE)))
      expect(decomposition.asns.length).toBeGreaterThan(0)
      const after = await niceByThread()
      const started = [...after].filter(([tid]) => !before.has(tid)).map(([, nice]) => nice)
      expect(started).toContain(10)
      expect(after.get(process.pid)).toBe(own)
    } finally {
      await pool.close()
    }
  })
})
