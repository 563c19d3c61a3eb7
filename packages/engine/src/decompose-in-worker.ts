import type { AsGraph } from './as-graph.js'
import type { DecomposedLinks } from './decompose-messages.js'
import { type Decomposed, type DecomposeOptions, DecomposePool } from './decompose-pool.js'
import type { GraphChange } from './graph-change.js'
import type { WhatIfOptions, WhatIfResult } from './what-if.js'

let shared: DecomposePool | undefined

/**
 * {@link DecomposePool.decompose} on one process-wide pool sized to the machine's cores: what
 * the ingest paths use, so concurrent refreshes never start more workers than there are cores.
 */
export function decomposeInWorker(
  bytes: Uint8Array,
  options?: DecomposeOptions,
): Promise<Decomposed> {
  shared ??= new DecomposePool()
  return shared.decompose(bytes, options)
}

/** {@link DecomposePool.whatIf} on the process-wide pool of {@link decomposeInWorker}. */
export function whatIfInWorker(
  graph: AsGraph,
  change: GraphChange,
  options?: WhatIfOptions & { signal?: AbortSignal },
): Promise<WhatIfResult> {
  shared ??= new DecomposePool()
  return shared.whatIf(graph, change, options)
}

/** {@link DecomposePool.decomposeToLinks} on the process-wide pool of {@link decomposeInWorker}. */
export function decomposeToLinksInWorker(
  bytes: Uint8Array,
  options?: DecomposeOptions,
): Promise<DecomposedLinks> {
  shared ??= new DecomposePool()
  return shared.decomposeToLinks(bytes, options)
}
