import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { afterAll, expect, it } from 'vitest'
import { AsRelParseError, DecomposePool } from '../src/index.js'
import { bzip2Bomb } from './bzip2-bomb.js'
import { caidaDir } from './caida-data.js'
import { watchEventLoop } from './event-loop-watch.js'
import { expectSameDecomposition } from './same-decomposition.js'

// The serial-2 files split across two workers and a bomb refused at the default cap (`pnpm
// test:full`); the 2024 serial-1 file, a multi-stream one and the bomb at a smaller cap in
// decompose-worker.slow.test.ts.
const split = new DecomposePool({ size: 2 })
afterAll(() => split.close())

it.each(['20240101.as-rel2.txt.bz2', '20200101.as-rel2.txt.bz2'])(
  'splits %s across two workers: the same as one pass',
  async (name) => {
    expect(existsSync(caidaDir + name)).toBe(true)
    await expectSameDecomposition(split, new Uint8Array(await readFile(caidaDir + name)), name)
    expect(split.workers.started).toBe(2)
  },
)

it('refuses a split bzip2 bomb at the default decompressed size cap, memory bounded', async () => {
  const { value: error, growth } = await watchEventLoop(() =>
    split.decompose(bzip2Bomb()).catch((e: unknown) => e),
  )
  expect(error).toBeInstanceOf(AsRelParseError)
  expect((error as Error).message).toMatch(/cap of 134217728 bytes/)
  // refused in one reading: the parts share the count, no second pass
  expect(growth).toBeLessThan(512 * 1024 * 1024)
})
