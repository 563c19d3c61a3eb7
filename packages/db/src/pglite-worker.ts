// The worker thread an embedded database runs in (`pglite-worker-engine.ts` starts it): the
// PGlite engine, and nothing else, so its work never holds up the thread that serves requests.
import { parentPort, workerData } from 'node:worker_threads'
import { compilePgliteWasm, createPglite } from './create-pglite.js'
import type { FromWorker, ToWorker, WorkerStart } from './pglite-worker-protocol.js'
import { toThreadError } from './thread-errors.js'

const port = parentPort
if (!port) throw new Error('pglite-worker runs as a worker thread')
const post = (message: FromWorker) => port.postMessage(message)
const start = workerData as WorkerStart

// The first worker of a process compiles the engine and hands it back; later ones reuse it.
const wasmModule = start.wasmModule ?? (await compilePgliteWasm().catch(() => undefined))
const pglite = createPglite({
  wasmModule,
  dataDir: start.dataDir,
  loadDataDir: start.loadDataDir ? new Blob([start.loadDataDir]) : undefined,
})
// PGlite calls this while it parses the answer of the statement that committed the NOTIFY, so
// the notification is posted before that answer; one port delivers in order, so listeners run
// before the committing call returns.
pglite.onNotification((channel, payload) => post({ type: 'notify', channel, payload }))

async function closeFiles(): Promise<void> {
  try {
    await pglite.fs?.closeFs()
  } catch {
    // An engine that never started has no files.
  }
}

async function answer(id: number, text: string, parameters: unknown[]): Promise<void> {
  try {
    const result = await pglite.query<unknown[]>(text, parameters, { rowMode: 'array' })
    post({
      type: 'result',
      id,
      names: result.fields.map((field) => field.name),
      rows: result.rows,
      ...(result.affectedRows ? { affectedRows: result.affectedRows } : {}),
    })
  } catch (error) {
    post({ type: 'error', id, error: toThreadError(error) })
  }
}

port.on('message', async (message: ToWorker) => {
  if (message.type === 'query') await answer(message.id, message.text, [...message.parameters])
  else if (message.type === 'drop') {
    await closeFiles()
    post({ type: 'dropped' })
  } else if (message.type === 'close') {
    try {
      await pglite.close()
    } finally {
      // The serving thread stops this one on the answer (Deno's port has no close()).
      post({ type: 'closed' })
    }
  }
})

try {
  await pglite.waitReady
  try {
    post({ type: 'ready', wasmModule: start.wasmModule ? undefined : wasmModule })
  } catch {
    // A runtime that cannot post a compiled module: the next worker compiles its own.
    post({ type: 'ready' })
  }
} catch (error) {
  await closeFiles()
  post({ type: 'failed', error: toThreadError(error) })
}
