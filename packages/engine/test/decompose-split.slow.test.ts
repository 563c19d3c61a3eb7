import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { MIN_PART_BYTES } from '../src/decompose-pool.js'
import { AsRelParseError, DecomposePool, decomposeSnapshot } from '../src/index.js'
import { bzip2Bomb } from './bzip2-bomb.js'
import { caidaDir } from './caida-data.js'
import { expectSameDecomposition } from './same-decomposition.js'

// A bzip2 file split across two workers (the one-worker pool: decompose-worker.slow.test.ts).
const file = `${caidaDir}20240801.as-rel.txt.bz2`
const split = new DecomposePool({ size: 2 })
afterAll(() => split.close())

describe('DecomposePool over two workers: one file split between them', () => {
  // two serial-2 files too in decompose-worker.full.test.ts
  it('splits a bzip2 file across two workers: the same as one pass, real and multi-stream', async () => {
    const name = '20240801.as-rel.txt.bz2'
    await expectSameDecomposition(split, new Uint8Array(await readFile(caidaDir + name)), name)
    expect(split.workers.started, name).toBe(2) // the helper was used
    // three streams cut mid-line from a real text, as pbzip2-style tools concatenate them
    const text = execFileSync('bzcat', [file], { maxBuffer: 1 << 26 })
    const cuts = [0, 2_000_001, 4_500_017, text.length]
    const streams = cuts.slice(1).map((end, i) =>
      execFileSync('bzip2', ['-1', '-c'], {
        input: text.subarray(cuts[i], end),
        maxBuffer: 1 << 26,
      }),
    )
    await expectSameDecomposition(split, new Uint8Array(Buffer.concat(streams)), 'multi-stream')
  })

  it('stops every worker of a split snapshot at an abort', async () => {
    const bytes = new Uint8Array(await readFile(file))
    await split.decompose(bytes) // both workers started and warm
    const controller = new AbortController()
    const running = split.decompose(bytes, { signal: controller.signal })
    await vi.waitFor(() => expect(split.workers).toEqual({ started: 2, busy: 2 }))
    controller.abort(new Error('stop'))
    await expect(running).rejects.toThrow('stop')
    // rejected only once both threads have exited: none is left decoding
    expect(split.workers).toEqual({ started: 0, busy: 0 })
    await expectSameDecomposition(split, bytes, 'after an abort')
  })

  // The package as published: dist/ bundled by tsup, the worker entry beside it, libbzip2's
  // WebAssembly loaded from @foxglove/wasm-bz2 in each worker (`pnpm test:all` builds dist).
  it('runs from the built package: dist workers load the wasm decoder and split a file', async () => {
    const dist = new URL('../dist/index.js', import.meta.url)
    expect(existsSync(dist), 'build first: pnpm --filter @kcore/engine build').toBe(true)
    const built = (await import(dist.href)) as typeof import('../src/index.js')
    const builtPool = new built.DecomposePool({ size: 2 })
    try {
      const bytes = new Uint8Array(await readFile(file))
      const fromDist = await builtPool.decompose(bytes)
      expect(builtPool.workers.started).toBe(2) // split across both
      const here = await decomposeSnapshot(bytes)
      expect(fromDist.graph.linkCount).toBe(here.graph.linkCount)
      expect(
        Buffer.from(fromDist.decomposition.shells.buffer).equals(
          Buffer.from(here.decomposition.shells.buffer),
        ),
      ).toBe(true)
      // and on the calling thread, from dist
      const graph = await built.parseAsRel(bytes)
      expect(
        Buffer.from(graph.neighbors.buffer).equals(Buffer.from(here.graph.neighbors.buffer)),
      ).toBe(true)
    } finally {
      await builtPool.close()
    }
  })

  // at a cap of 16 MiB here, at the default cap (128 MiB) in decompose-worker.full.test.ts;
  // the memory it takes meanwhile is a figure of `pnpm bench:worker-bounds`
  it('refuses a split bzip2 bomb at the decompressed size cap, in one reading', async () => {
    const bomb = bzip2Bomb()
    expect(bomb.length).toBeGreaterThan(2 * MIN_PART_BYTES) // split in two
    const error = await split
      .decompose(bomb, { maxDecompressedBytes: 16 * 1024 * 1024 })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AsRelParseError)
    expect((error as Error).message).toMatch(/decompressed size cap/)
  })
})
