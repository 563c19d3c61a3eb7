import type { MessagePort } from 'node:worker_threads'
import type { AsGraph } from './as-graph.js'
import type { CoreDecomposition } from './core-decomposition.js'
import type { GraphChange } from './graph-change.js'
import type { PackedWhatIf } from './packed-what-if.js'

/**
 * @internal What a worker sends back of the graph: all of it (`graph`), or its links encoded
 * ({@link encodeGraphLinks}, done in the worker) and its counts and metadata (`links`), so
 * that the thread answering requests receives a sixth of the bytes.
 */
export type DecomposeOutput = 'graph' | 'links'

/**
 * @internal What the pool posts to a worker: a whole snapshot, or (`split`) the lead of a bzip2
 * snapshot split across workers, which reads part 0 and stitches the helpers' parts, received
 * on `helpers` (one port per helper, in part order).
 */
export type DecomposeJob =
  | { kind: 'whole'; output: DecomposeOutput; bytes: Uint8Array; maxDecompressedBytes?: number }
  | {
      kind: 'split'
      output: DecomposeOutput
      bytes: Uint8Array
      helpers: MessagePort[]
      /** Text bytes decoded so far by all parts (a BigInt64Array's one cell). */
      counted: SharedArrayBuffer
      maxDecompressedBytes?: number
    }

/** @internal A what-if question: the graph (in shared memory), the change, the stored cores. */
export interface WhatIfJob {
  kind: 'what-if'
  graph: AsGraph
  change: GraphChange
  before?: CoreDecomposition
  /** Names the pair `graph`, `before` (the same in every job about them): see `orderFor`. */
  key?: number
}

/** @internal A helper's share of a split snapshot; its `AsRelPart` goes to `lead`. */
export interface PartJob {
  kind: 'part'
  bytes: Uint8Array
  part: number
  parts: number
  lead: MessagePort
  counted: SharedArrayBuffer
  maxDecompressedBytes?: number
}

/** @internal What a worker answers (a helper: `part-done` once its part is handed over). */
export type DecomposeReply =
  | { ok: true; output: 'graph'; graph: AsGraph; decomposition: CoreDecomposition }
  | ({ ok: true; output: 'links' } & DecomposedLinks)
  | { ok: true; output: 'what-if'; result: PackedWhatIf }
  | { ok: false; name: string; message: string; line: number | undefined }

/** A snapshot decomposed, its graph's links encoded ({@link DecomposePool.decomposeToLinks}). */
export interface DecomposedLinks {
  decomposition: CoreDecomposition
  /** `encodeGraphLinks(graph)`: read back with `decodeGraphLinks`. */
  links: Uint8Array
  linkCount: number
  format: AsGraph['format']
  metadata: AsGraph['metadata']
}
