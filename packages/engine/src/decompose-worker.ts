import { parentPort } from 'node:worker_threads'
import { AsRelParseError } from './as-rel-parse-error.js'
import { type AsRelPart, parseAsRelPart } from './as-rel-part.js'
import { coreDecomposition } from './core-decomposition.js'
import type { Decomposed, DecomposeJob, DecomposeReply, PartJob } from './decompose-pool.js'
import { decomposeSnapshot } from './decompose-snapshot.js'
import { DEFAULT_MAX_DECOMPRESSED_BYTES } from './parse-as-rel.js'
import { stitchAsRelParts } from './stitch-as-rel-parts.js'

// Decode, parse and decompose here, off the thread that answers requests: a whole snapshot,
// or (for a bzip2 file split across workers) part 0 plus the stitching of the helpers' parts,
// or one helper's part. The typed arrays go back transferred, not copied.
const port = parentPort
if (!port) throw new Error('decompose-worker.ts runs as a worker thread only')
port.on('message', async (job: DecomposeJob | PartJob) => {
  if (job.kind === 'part') {
    readPart(job)
    port.postMessage({ kind: 'part-done' })
    return
  }
  let result: Decomposed
  try {
    result = await decompose(job)
  } catch (error) {
    const reply: DecomposeReply = {
      ok: false,
      name: error instanceof Error ? error.name : 'Error',
      message: error instanceof Error ? error.message : String(error),
      line: error instanceof AsRelParseError ? error.line : undefined,
    }
    port.postMessage(reply)
    return
  }
  const { graph, decomposition } = result
  const buffers = new Set<ArrayBuffer>(
    [graph.asns, graph.offsets, graph.neighbors, decomposition.shells].map(
      (array) => array.buffer as ArrayBuffer,
    ),
  )
  const reply: DecomposeReply = { ok: true, graph, decomposition }
  port.postMessage(reply, [...buffers])
})

async function decompose(job: DecomposeJob): Promise<Decomposed> {
  if (job.kind === 'split') {
    const graph = await splitGraph(job)
    if (graph) return { graph, decomposition: coreDecomposition(graph) }
  }
  // in one part: the reference reading, and the one that reports any error
  return decomposeSnapshot(job.bytes, { maxDecompressedBytes: job.maxDecompressedBytes })
}

/** Part 0 read here, the others by the helpers, stitched; undefined if anything failed. */
async function splitGraph(job: Extract<DecomposeJob, { kind: 'split' }>) {
  const theirs = job.helpers.map(
    (helper) =>
      new Promise<AsRelPart | undefined>((resolve) => {
        helper.once('message', (part: AsRelPart | undefined) => {
          helper.close()
          resolve(part)
        })
      }),
  )
  let own: AsRelPart | undefined
  try {
    own = parseAsRelPart(
      job.bytes,
      0,
      job.helpers.length + 1,
      counter(job.counted, job.maxDecompressedBytes),
    )
  } catch {}
  const parts = await Promise.all(theirs)
  if (!own || !parts.every((part) => part !== undefined)) return undefined
  try {
    return stitchAsRelParts([own, ...parts])
  } catch {
    return undefined
  }
}

/** Counts text bytes over all parts of one snapshot, refusing past the cap. */
function counter(shared: SharedArrayBuffer, cap: number | undefined): (bytes: number) => void {
  const total = new BigInt64Array(shared)
  const limit = BigInt(cap ?? DEFAULT_MAX_DECOMPRESSED_BYTES)
  return (bytes) => {
    if (Atomics.add(total, 0, BigInt(bytes)) + BigInt(bytes) > limit) {
      throw new AsRelParseError('decompressed size cap exceeded', 0)
    }
  }
}

function readPart(job: PartJob): void {
  let part: AsRelPart | undefined
  try {
    part = parseAsRelPart(
      job.bytes,
      job.part,
      job.parts,
      counter(job.counted, job.maxDecompressedBytes),
    )
  } catch {
    // the lead reads the snapshot again in one part, which reports the error
  }
  if (part) job.lead.postMessage(part, [part.pairs.buffer as ArrayBuffer])
  else job.lead.postMessage(undefined)
  job.lead.close()
}
