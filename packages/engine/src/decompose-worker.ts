import { setPriority } from 'node:os'
import { parentPort } from 'node:worker_threads'
import { AsRelParseError } from './as-rel-parse-error.js'
import { type AsRelPart, parseAsRelPart, type TextBudget } from './as-rel-part.js'
import { loadBzip2BlockDecoder } from './bzip2-block-decoder.js'
import { coreDecomposition } from './core-decomposition.js'
import type { DecomposeJob, DecomposeReply, PartJob, WhatIfJob } from './decompose-messages.js'
import type { Decomposed } from './decompose-pool.js'
import { decomposeSnapshot } from './decompose-snapshot.js'
import { encodeGraphLinks } from './encode-graph-links.js'
import { packWhatIf } from './packed-what-if.js'
import { DEFAULT_MAX_DECOMPRESSED_BYTES, decompressedCapError } from './parse-as-rel.js'
import { type ShellOrder, shellOrder } from './shell-order.js'
import { stitchAsRelParts } from './stitch-as-rel-parts.js'
import { whatIf } from './what-if.js'

// Decode, parse and decompose here, off the thread that answers requests: a whole snapshot,
// or (for a bzip2 file split across workers) part 0 plus the stitching of the helpers' parts,
// or one helper's part; or a what-if question on a graph. The typed arrays go back
// transferred, not copied.
const port = parentPort
if (!port) throw new Error('decompose-worker.ts runs as a worker thread only')
// Decoding is background work: the thread answering requests and the database's must win the
// cores from it. On Linux a thread's nice value is its own (0 is the calling thread); elsewhere
// it would lower the whole process, so it is left alone there.
if (process.platform === 'linux') {
  try {
    setPriority(10)
  } catch {}
}
// libbzip2's WebAssembly compiles once per thread: start now, while the first job is on its way
// (a failure is reported by the job that needs it)
loadBzip2BlockDecoder().catch(() => {})
/** A thrown error as a reply: its name, message and (a parse error's) line. */
const failure = (error: unknown): DecomposeReply => ({
  ok: false,
  name: error instanceof Error ? error.name : 'Error',
  message: error instanceof Error ? error.message : String(error),
  line: error instanceof AsRelParseError ? error.line : undefined,
})

port.on('message', async (job: DecomposeJob | PartJob | WhatIfJob) => {
  if (job.kind === 'part') {
    await readPart(job)
    port.postMessage({ kind: 'part-done' })
    return
  }
  if (job.kind === 'what-if') {
    let reply: DecomposeReply
    let transfer: ArrayBuffer[] = []
    try {
      const options = job.before ? { before: job.before, order: orderFor(job) } : {}
      const result = packWhatIf(whatIf(job.graph, job.change, options))
      reply = { ok: true, output: 'what-if', result }
      transfer = [bufferOf(result.changes)]
    } catch (error) {
      reply = failure(error)
    }
    port.postMessage(reply, transfer)
    return
  }
  let result: Decomposed
  try {
    result = await decompose(job)
  } catch (error) {
    port.postMessage(failure(error))
    return
  }
  const { graph, decomposition } = result
  if (job.output === 'links') {
    const links = encodeGraphLinks(graph)
    const { linkCount, format, metadata } = graph
    const reply: DecomposeReply = {
      ok: true,
      output: 'links',
      decomposition,
      links,
      linkCount,
      format,
      metadata,
    }
    port.postMessage(reply, [links, decomposition.asns, decomposition.shells].map(bufferOf))
    return
  }
  const buffers = new Set<ArrayBuffer>(
    [graph.asns, graph.offsets, graph.neighbors, decomposition.shells].map(bufferOf),
  )
  const reply: DecomposeReply = { ok: true, output: 'graph', graph, decomposition }
  port.postMessage(reply, [...buffers])
})

/** The last what-if pair's key and, once it is asked about again, its shell order. */
let lastPair: { key: number; order?: ShellOrder } | undefined

/**
 * The job's {@link ShellOrder}, from its pair's second question on: a graph questioned again
 * (the single-date route's, cached by the store) is worth ~10 ms once to speed up every
 * removal; one asked once (a history stream's) is not.
 */
function orderFor(job: WhatIfJob): ShellOrder | undefined {
  if (job.key === undefined || !job.before) return undefined
  if (lastPair?.key !== job.key) {
    lastPair = { key: job.key }
    return undefined
  }
  lastPair.order ??= shellOrder(job.graph, job.before.shells)
  return lastPair.order
}

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
    own = await parseAsRelPart(job.bytes, 0, job.helpers.length + 1, budget(job))
  } catch {}
  const parts = await Promise.all(theirs)
  // a bomb: refused now, not read a second time
  if (capExceeded(job))
    throw decompressedCapError(job.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES, 1)
  if (!own || !parts.every((part) => part !== undefined)) return undefined
  try {
    return stitchAsRelParts([own, ...parts])
  } catch {
    return undefined
  }
}

/**
 * Counts text bytes over all parts of one snapshot (before they are parsed), refusing past the
 * cap: what a bomb of concatenated streams meets, in every part at once; no part decodes a
 * block longer than what is left. A refusal stands without a second reading (only sound
 * blocks count: a false magic decodes nothing). Its line is not known across parts: 1.
 */
function budget(job: { counted: SharedArrayBuffer; maxDecompressedBytes?: number }): TextBudget {
  const total = new BigInt64Array(job.counted)
  const cap = job.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES
  const refuse = (): never => {
    // marks the cell past the cap, so the lead refuses without reading again
    Atomics.add(total, 0, BigInt(cap) + 1n)
    throw decompressedCapError(cap, 1)
  }
  return {
    room: () => Math.max(0, cap - Number(Atomics.load(total, 0))),
    count: (bytes) => {
      if (Atomics.add(total, 0, BigInt(bytes)) + BigInt(bytes) > BigInt(cap)) refuse()
    },
    refuse,
  }
}

/** Whether the parts' shared count went past the cap. */
function capExceeded(job: { counted: SharedArrayBuffer; maxDecompressedBytes?: number }) {
  const cap = job.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES
  return new BigInt64Array(job.counted)[0]! > BigInt(cap)
}

async function readPart(job: PartJob): Promise<void> {
  let part: AsRelPart | undefined
  try {
    part = await parseAsRelPart(job.bytes, job.part, job.parts, budget(job))
  } catch {
    // the lead reads the snapshot again in one part, which reports the error
  }
  if (part) job.lead.postMessage(part, [part.pairs.buffer as ArrayBuffer])
  else job.lead.postMessage(undefined)
  job.lead.close()
}

function bufferOf(array: Uint8Array | Uint32Array): ArrayBuffer {
  return array.buffer as ArrayBuffer
}
