import type { AsGraph } from './as-graph.js'
import { type CoreDecomposition, coreDecomposition } from './core-decomposition.js'
import { parseAsRel } from './parse-as-rel.js'
import type { AsRelInput } from './read-as-rel-input.js'

/**
 * Parses a snapshot and computes its core decomposition in one call.
 *
 * @throws {AsRelParseError} as {@link parseAsRel} does.
 */
export async function decomposeSnapshot(
  input: AsRelInput,
  options: { signal?: AbortSignal } = {},
): Promise<{ graph: AsGraph; decomposition: CoreDecomposition }> {
  const graph = await parseAsRel(input, options)
  return { graph, decomposition: coreDecomposition(graph) }
}
