/**
 * `@kcore/engine`: parse CAIDA AS-relationship snapshots, compute k-core decompositions, and
 * list and download snapshots from a provider.
 * @packageDocumentation
 */
export type { AsGraph, SnapshotMetadata } from './as-graph.js'
export { AsRelParseError } from './as-rel-parse-error.js'
export { type CoreDecomposition, coreDecomposition } from './core-decomposition.js'
export { coreNumbers } from './core-numbers.js'
export { decodeGraphLinks } from './decode-graph-links.js'
export {
  decomposeInWorker,
  decomposeToLinksInWorker,
  whatIfInWorker,
} from './decompose-in-worker.js'
export type { DecomposedLinks } from './decompose-messages.js'
export { type Decomposed, type DecomposeOptions, DecomposePool } from './decompose-pool.js'
export { decomposeSnapshot } from './decompose-snapshot.js'
export { type Compression, detectCompression } from './detect-compression.js'
export { encodeGraphLinks } from './encode-graph-links.js'
export { ENGINE_VERSION } from './engine-version.js'
export type { AsLink, GraphChange } from './graph-change.js'
export { GRAPH_LINKS_VERSION } from './graph-links-format.js'
export type { IpVersion } from './ip-version.js'
export { MAX_ASN } from './max-asn.js'
export {
  DEFAULT_MAX_DECOMPRESSED_BYTES,
  type ParseAsRelOptions,
  parseAsRel,
} from './parse-as-rel.js'
export { createProvider } from './provider/create-provider.js'
export { ProviderError } from './provider/provider-error.js'
export {
  DEFAULT_PROVIDER_URL,
  type ProviderOptions,
  type SnapshotDownload,
  type SnapshotProvider,
  type SnapshotRef,
} from './provider/snapshot-provider.js'
export type { AsRelInput } from './read-as-rel-input.js'
export { parseSnapshotFileName, type SnapshotFileInfo } from './snapshot-file-name.js'
export { toGraph } from './to-graph.js'
export {
  type ShellChange,
  type WhatIfCounts,
  type WhatIfOptions,
  type WhatIfResult,
  whatIf,
} from './what-if.js'
