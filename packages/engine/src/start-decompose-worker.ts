import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { workerExecArgv, workerLoadingArgv } from './worker-exec-argv.js'

// From dist (tsup) the worker is the `decompose-worker.js` entry beside this bundle. From src
// (Vitest, tsx with the "source" condition) it is TypeScript: a small CommonJS bootstrap
// registers tsx's require hook in the worker first (Node 20 applies neither `--import` in a
// worker's execArgv nor the parent's ESM loader hooks to a worker).
const fromSource = import.meta.url.endsWith('.ts')
const workerUrl = new URL(
  fromSource ? './decompose-worker.ts' : './decompose-worker.js',
  import.meta.url,
)

// A worker inherits the host's execArgv, whatever way the host was started (a one-liner, a REPL):
// less the options that only name the host's entry point, which a worker may refuse.
// Node refuses some flags in a worker (V8 options of the process, `--expose-gc`): then only the
// flags that load modules.
export function startWorker(): Worker {
  try {
    return workerWith(workerExecArgv(process.execArgv))
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw error
    return workerWith(workerLoadingArgv(process.execArgv))
  }
}

function workerWith(execArgv: string[]): Worker {
  if (!fromSource) return new Worker(workerUrl, { execArgv })
  const tsx = createRequire(import.meta.url).resolve('tsx/cjs/api')
  const bootstrap = `require(${JSON.stringify(tsx)}).register()
require(${JSON.stringify(fileURLToPath(workerUrl))})`
  return new Worker(bootstrap, { eval: true, execArgv })
}
