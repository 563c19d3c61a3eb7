import { expect } from 'vitest'
import { type DecomposePool, decomposeSnapshot } from '../src/index.js'

/** A snapshot decomposed in `pool` (split across its workers) equals the calling thread's. */
export async function expectSameDecomposition(
  pool: DecomposePool,
  bytes: Uint8Array,
  what: string,
): Promise<void> {
  const inWorkers = await pool.decompose(bytes)
  const here = await decomposeSnapshot(bytes)
  expect(inWorkers.graph.linkCount, what).toBe(here.graph.linkCount)
  expect(inWorkers.graph.format, what).toBe(here.graph.format)
  expect(inWorkers.graph.metadata, what).toEqual(here.graph.metadata)
  expect(
    Buffer.from(inWorkers.graph.neighbors.buffer).equals(Buffer.from(here.graph.neighbors.buffer)),
    what,
  ).toBe(true)
  expect(
    Buffer.from(inWorkers.decomposition.asns.buffer).equals(
      Buffer.from(here.decomposition.asns.buffer),
    ),
    what,
  ).toBe(true)
  expect(
    Buffer.from(inWorkers.decomposition.shells.buffer).equals(
      Buffer.from(here.decomposition.shells.buffer),
    ),
    what,
  ).toBe(true)
}
