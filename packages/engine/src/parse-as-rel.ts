import type { AsGraph } from './as-graph.js'
import { AsRelLineReader } from './as-rel-line-reader.js'
import { AsRelParseError } from './as-rel-parse-error.js'
import { buildAsGraph } from './build-as-graph.js'
import { type AsRelInput, readAsRelInput } from './read-as-rel-input.js'

/**
 * Default cap on a snapshot's decompressed text: 128 MiB, ~12x the largest real file (the
 * 2024 serial-2 file is 11 MB of text, serial-1 ~7 MB). Parsing holds ~3 bytes per byte of text at its peak,
 * so a bzip2 bomb of valid lines stops well under 1 GiB.
 */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 128 * 1024 * 1024

/** The refusal of a snapshot whose text is longer than `cap`, at line `line`. */
export function decompressedCapError(cap: number, line: number): AsRelParseError {
  return new AsRelParseError(
    `snapshot refused: its text exceeds the decompressed size cap of ${cap} bytes ` +
      `(maxDecompressedBytes)`,
    line,
  )
}

/** Options of {@link parseAsRel}. */
export interface ParseAsRelOptions {
  signal?: AbortSignal
  /** Refuse text longer than this many bytes (default {@link DEFAULT_MAX_DECOMPRESSED_BYTES}). */
  maxDecompressedBytes?: number
}

/**
 * Parses a CAIDA AS-relationship snapshot (serial-1 IPv4 or IPv6, or serial-2) into a compact
 * CSR graph. The input is text, bytes or a web byte stream; plain, bzip2 and gzip are told apart
 * by their magic bytes. The text is read line by line into typed arrays, so the decompressed
 * text is never held whole.
 *
 * @throws {AsRelParseError} on a malformed data line (with its 1-based line number), on
 * corrupt or truncated compressed data, or on text longer than `maxDecompressedBytes`. An empty input gives an empty graph.
 * @example
 * ```ts
 * const graph = await parseAsRel(await readFile('20130201.as-rel.txt.bz2'))
 * graph.asns.length // 43_560
 * ```
 */
export async function parseAsRel(
  input: AsRelInput,
  options: ParseAsRelOptions = {},
): Promise<AsGraph> {
  const reader = new AsRelLineReader()
  const cap = options.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES
  let total = 0
  const refuse = (): never => {
    throw decompressedCapError(cap, reader.lineCount + 1)
  }
  await readAsRelInput(
    input,
    {
      push: (chunk) => {
        // Counted before the chunk is parsed: a bomb stops at the cap, its edges never grow past it.
        total += chunk.length
        if (total > cap) refuse()
        reader.push(chunk)
      },
      lineAt: () => reader.lineCount + 1,
      // bzip2 decodes no block longer than this
      room: () => cap - total,
      refuse,
    },
    options.signal,
  )
  reader.end()
  return buildAsGraph(
    reader.edges.view(),
    reader.serial2 ? 'serial-2' : 'serial-1',
    reader.metadata,
  )
}
