import { readFile } from 'node:fs/promises'
import { afterAll, describe, expect, it, vi } from 'vitest'
import {
  AsRelParseError,
  DecomposePool,
  decomposeSnapshot,
  encodeGraphLinks,
  whatIf,
} from '../src/index.js'
import { caidaDir } from './caida-data.js'

// A real 2024 file: ~1 s of decoding and parsing on one core of this machine.
const file = `${caidaDir}20240801.as-rel.txt.bz2`
const pool = new DecomposePool({ size: 1 })
// two workers: a bzip2 file is split across both
const split = new DecomposePool({ size: 2 })
afterAll(() => Promise.all([pool.close(), split.close()]))

describe('DecomposePool (worker threads)', () => {
  // an idle server holds no decoder: workers start with the first snapshot, as many as it needs
  it('starts no worker before work arrives, then only those the work needs', async () => {
    const lazy = new DecomposePool({ size: 2 })
    try {
      expect(lazy.workers).toEqual({ started: 0, busy: 0 })
      await lazy.decompose(new TextEncoder().encode('1|2|0\n')) // plain text: one part
      expect(lazy.workers).toEqual({ started: 1, busy: 0 })
    } finally {
      await lazy.close()
    }
  })

  // an idle server holds no decoder after its work either: workers stop once idle for idleMs
  it('stops its workers once idle, and starts them again for the next snapshot', async () => {
    const brief = new DecomposePool({ size: 2, idleMs: 50 })
    try {
      await brief.decompose(new TextEncoder().encode('1|2|0\n'))
      await vi.waitFor(() => expect(brief.workers).toEqual({ started: 0, busy: 0 }), {
        timeout: 30_000,
      })
      const again = await brief.decompose(new TextEncoder().encode('1|2|0\n3|4|0\n'))
      expect(again.graph.linkCount).toBe(2)
    } finally {
      await brief.close()
    }
  })

  it('gives the same decomposition as the calling thread', async () => {
    const bytes = new Uint8Array(await readFile(file))
    const inWorker = await pool.decompose(bytes)
    const here = await decomposeSnapshot(bytes)
    expect(inWorker.graph.linkCount).toBe(here.graph.linkCount)
    expect(inWorker.graph.metadata).toEqual(here.graph.metadata)
    expect(inWorker.decomposition.maxShell).toBe(here.decomposition.maxShell)
    expect(Buffer.from(inWorker.decomposition.asns.buffer)).toEqual(
      Buffer.from(here.decomposition.asns.buffer),
    )
    expect([...inWorker.decomposition.shells]).toEqual([...here.decomposition.shells])
  })

  // On the calling thread the same work holds the event loop for the whole decode (~1 s): in a
  // worker the loop turns while it runs. How long its gaps are is a figure of
  // `pnpm bench:worker-bounds` (target < 100 ms), not of this test.
  it('keeps the event loop turning while a real 2024 file is decomposed', async () => {
    const bytes = new Uint8Array(await readFile(file))
    const running = pool.decompose(bytes)
    let turnsWhileBusy = 0
    while (pool.workers.busy > 0 && turnsWhileBusy < 3) {
      await new Promise((resolve) => setTimeout(resolve, 0))
      if (pool.workers.busy > 0) turnsWhileBusy++
    }
    expect(turnsWhileBusy).toBe(3)
    expect((await running).decomposition.maxShell).toBeGreaterThan(0)
  })

  // How soon it rejects is a figure of `pnpm bench:worker-bounds` (target < 150 ms).
  it('stops the work at an abort: the worker is terminated, the next snapshot gets a new one', async () => {
    const bytes = new Uint8Array(await readFile(file))
    const controller = new AbortController()
    const running = pool.decompose(bytes, { signal: controller.signal })
    await vi.waitFor(() => expect(pool.workers.busy).toBe(1))
    controller.abort(new Error('stop'))
    await expect(running).rejects.toThrow('stop')
    expect(pool.workers).toEqual({ started: 0, busy: 0 })
    const next = await pool.decompose(bytes)
    expect(next.decomposition.maxShell).toBeGreaterThan(0)
  })

  it('honours a deadline (AbortSignal.timeout): a TimeoutError, the worker ended', async () => {
    const bytes = new Uint8Array(await readFile(file))
    await expect(pool.decompose(bytes, { signal: AbortSignal.timeout(100) })).rejects.toMatchObject(
      { name: 'TimeoutError' },
    )
    expect(pool.workers.busy).toBe(0)
  })

  // what a store keeps: the shell indices and the links encoded, in one worker and split
  it('sends the links encoded instead of the graph when asked, whole or split', async () => {
    // 553 kB: split in two on a pool of two
    const bytes = new Uint8Array(await readFile(`${caidaDir}20140101.as-rel.txt.bz2`))
    const here = await decomposeSnapshot(bytes)
    for (const [what, onPool] of [
      ['one worker', pool],
      ['split', split],
    ] as const) {
      const sent = await onPool.decomposeToLinks(bytes)
      expect(Buffer.from(sent.links).equals(Buffer.from(encodeGraphLinks(here.graph))), what).toBe(
        true,
      )
      expect(Buffer.from(sent.decomposition.shells.buffer)).toEqual(
        Buffer.from(here.decomposition.shells.buffer),
      )
      expect(sent.decomposition.asns).toEqual(here.decomposition.asns)
      expect(sent.decomposition.maxShell).toBe(here.decomposition.maxShell)
      expect({ ...sent, links: 0, decomposition: 0 }).toEqual({
        links: 0,
        decomposition: 0,
        linkCount: here.graph.linkCount,
        format: here.graph.format,
        metadata: here.graph.metadata,
      })
    }
    await expect(pool.decomposeToLinks(new TextEncoder().encode('1|x|0\n'))).rejects.toThrow(
      AsRelParseError,
    )
  })

  it('passes parse errors back as AsRelParseError with the line', async () => {
    const bytes = new TextEncoder().encode('1|2|-1\n3|x|0\n')
    const error = await pool.decompose(bytes).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AsRelParseError)
    expect(error).toMatchObject({ line: 2 })
  })

  // The what-if routes' question, off the thread answering requests: the same answer as in
  // the calling thread, the graph left as it was, refusals of the same class, aborts that stop.
  it('answers whatIf in a worker exactly as the calling thread does', async () => {
    const { graph, decomposition } = await decomposeSnapshot(
      await readFile(`${caidaDir}20130201.as-rel.txt.bz2`),
    )
    const top = [...graph.asns].filter((_, i) => decomposition.shells[i] === decomposition.maxShell)
    const neighbors = graph.neighbors.slice()
    for (const change of [
      {},
      { removeAsns: [174] },
      { removeAsns: top.slice(0, 3), addLinks: [[top[3]!, 4_200_000_000]] as [number, number][] },
      { removeLinks: [[graph.asns[0]!, graph.asns[1]!]] as [number, number][] },
    ]) {
      const here = whatIf(graph, change, { before: decomposition })
      expect(await pool.whatIf(graph, change, { before: decomposition })).toEqual(here)
      expect(await pool.whatIf(graph, change)).toEqual(here)
    }
    // asked again and again: from its second question a worker keeps the pair's shell order
    const again = {
      removeAsns: [174, top[4]!],
      removeLinks: [[top[5]!, top[6]!]] as [number, number][],
    }
    const here = whatIf(graph, again, { before: decomposition })
    for (let i = 0; i < 3; i++)
      expect(await pool.whatIf(graph, again, { before: decomposition })).toEqual(here)
    expect(graph.neighbors).toEqual(neighbors)
    await expect(pool.whatIf(graph, { removeAsns: [-1] })).rejects.toBeInstanceOf(RangeError)
    await expect(
      pool.whatIf(graph, { removeAsns: 'x' as unknown as number[] }),
    ).rejects.toBeInstanceOf(TypeError)
    const stop = new AbortController()
    const asked = pool.whatIf(graph, { removeAsns: [174] }, { signal: stop.signal })
    stop.abort(new Error('client gone'))
    await expect(asked).rejects.toThrow('client gone')
    // the pool goes on after an abort
    expect((await pool.whatIf(graph, {})).changes).toEqual([])
  })
})
