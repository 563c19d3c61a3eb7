import { parentPort } from 'node:worker_threads'
import { AsRelParseError } from './as-rel-parse-error.js'
import type { DecomposeJob, DecomposeReply } from './decompose-pool.js'
import { decomposeSnapshot } from './decompose-snapshot.js'

// One snapshot at a time: decode, parse and decompose here, off the thread that answers
// requests; the typed arrays go back transferred, not copied.
const port = parentPort
if (!port) throw new Error('decompose-worker.ts runs as a worker thread only')
port.on('message', async (job: DecomposeJob) => {
  let reply: DecomposeReply
  try {
    const { graph, decomposition } = await decomposeSnapshot(job.bytes, {
      maxDecompressedBytes: job.maxDecompressedBytes,
    })
    reply = { ok: true, graph, decomposition }
    const buffers = new Set<ArrayBuffer>(
      [graph.asns, graph.offsets, graph.neighbors, decomposition.shells].map(
        (array) => array.buffer as ArrayBuffer,
      ),
    )
    port.postMessage(reply, [...buffers])
    return
  } catch (error) {
    reply = {
      ok: false,
      name: error instanceof Error ? error.name : 'Error',
      message: error instanceof Error ? error.message : String(error),
      line: error instanceof AsRelParseError ? error.line : undefined,
    }
  }
  port.postMessage(reply)
})
