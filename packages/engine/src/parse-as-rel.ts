import type { AsGraph } from './as-graph.js'
import { AsRelLineReader } from './as-rel-line-reader.js'
import { buildAsGraph } from './build-as-graph.js'
import { type AsRelInput, readAsRelInput } from './read-as-rel-input.js'

/**
 * Parses a CAIDA AS-relationship snapshot (serial-1 IPv4 or IPv6, or serial-2) into a compact
 * CSR graph. The input is text, bytes or a web byte stream; plain, bzip2 and gzip are told apart
 * by their magic bytes. The text is read line by line into typed arrays, so the decompressed
 * text is never held whole.
 *
 * @throws {AsRelParseError} on a malformed data line (with its 1-based line number) or on
 * corrupt or truncated compressed data. An empty input gives an empty graph.
 * @example
 * ```ts
 * const graph = await parseAsRel(await readFile('20130201.as-rel.txt.bz2'))
 * graph.asns.length // 43_560
 * ```
 */
export async function parseAsRel(
  input: AsRelInput,
  options: { signal?: AbortSignal } = {},
): Promise<AsGraph> {
  const reader = new AsRelLineReader()
  await readAsRelInput(
    input,
    (chunk) => reader.push(chunk),
    () => reader.lineCount + 1,
    options.signal,
  )
  reader.end()
  return buildAsGraph(
    reader.edges.view(),
    reader.serial2 ? 'serial-2' : 'serial-1',
    reader.metadata,
  )
}
