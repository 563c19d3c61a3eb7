import type { AsGraph } from './as-graph.js'
import { type CoreDecomposition, coreDecomposition } from './core-decomposition.js'
import { type ParseAsRelOptions, parseAsRel } from './parse-as-rel.js'
import type { AsRelInput } from './read-as-rel-input.js'

/**
 * Parses a snapshot and computes its core decomposition in one call.
 *
 * Runs on the calling thread; a server decomposes with `decomposeInWorker` instead.
 *
 * @throws {AsRelParseError} as {@link parseAsRel} does.
 */
export async function decomposeSnapshot(
  input: AsRelInput,
  options: ParseAsRelOptions = {},
): Promise<{ graph: AsGraph; decomposition: CoreDecomposition }> {
  const graph = await parseAsRel(input, options)
  return { graph, decomposition: coreDecomposition(graph) }
}
