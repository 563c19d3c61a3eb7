// The resident memory of an idle `kcore serve` on the embedded database, beside the 250 MiB
// target: its first start on a fresh data directory (which seeds the sample data) and a
// restart on that directory, each left idle past the decode pool's idle stop (10 s), then
// after 100 requests. One fresh process per start; RSS from /proc (every thread: PGlite's
// worker included).
//   pnpm build:changed && tsx bench/idle-server.ts   (IDLE_SECONDS=12, MALLOC_ARENA_MAX as set)
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

const TARGET_MIB = 250
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 12)
const bin = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url))

const rssMib = (pid: number) => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)
  return line ? Math.round(Number(line[1]) / 1024) : Number.NaN
}

/** Starts the server and resolves with its port once it logs `listening`. */
function start(dataDir: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, KCORE_DATA_DIR: dataDir, KCORE_PORT: '0', KCORE_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
    createInterface({ input: child.stderr! }).on('line', (line) => {
      const entry = JSON.parse(line) as { msg: string; url?: string }
      if (entry.msg === 'listening') resolve({ child, port: Number(new URL(entry.url!).port) })
    })
  })
}

async function measure(label: string, dataDir: string): Promise<void> {
  const started = performance.now()
  const { child, port } = await start(dataDir)
  const startMs = Math.round(performance.now() - started)
  await sleep(IDLE_SECONDS * 1000)
  const idle = rssMib(child.pid!)
  for (let i = 0; i < 100; i++) {
    await (await fetch(`http://127.0.0.1:${port}/api/trends/${[3356, 174, 13335][i % 3]}`)).text()
  }
  await sleep(1000)
  const served = rssMib(child.pid!)
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
  const verdict = idle <= TARGET_MIB ? 'met' : 'missed'
  console.log(
    `${label}: started in ${startMs} ms; idle ${idle} MiB (target ≤ ${TARGET_MIB}: ${verdict}); after 100 trend answers ${served} MiB`,
  )
}

const dataDir = mkdtempSync(join(tmpdir(), 'kcore-idle-'))
try {
  console.log(
    `MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? '(unset)'}, idle ${IDLE_SECONDS} s`,
  )
  await measure('first start (seeds)', dataDir)
  await measure('restart', dataDir)
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
