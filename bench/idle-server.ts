// The resident memory of an idle `kcore serve` on the embedded database, beside the 250 MiB
// target: its first start on a fresh data directory (which a child `kcore seed` seeds) and a
// restart on that directory, each left idle past the decode pool's idle stop (10 s), then
// after 100 requests. One fresh process per start; RSS from /proc (every thread: PGlite's
// worker included). Both under Node's defaults and with the allocator settings `pnpm start`
// gives (read from its script; BENCH_ENV=start or defaults for one).
//   pnpm bench:idle-server   (IDLE_SECONDS=12)
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
function start(
  dataDir: string,
  settings: Record<string, string>,
): Promise<{ child: ChildProcess; port: number }> {
  const { MALLOC_ARENA_MAX: _, GLIBC_TUNABLES: __, ...inherited } = process.env
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: {
      ...inherited,
      ...settings,
      KCORE_DATA_DIR: dataDir,
      KCORE_PORT: '0',
      KCORE_LOG_LEVEL: 'info',
    },
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

async function measure(
  label: string,
  dataDir: string,
  settings: Record<string, string>,
): Promise<void> {
  const started = performance.now()
  const { child, port } = await start(dataDir, settings)
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

/** The `NAME=${NAME:-value}` defaults of `pnpm start`'s script. */
const startScript: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).scripts.start
const startSettings = Object.fromEntries(
  [...startScript.matchAll(/(\w+)=\$\{\1:-([^}]+)\}/g)].map((m) => [m[1], m[2]]),
)
const runs = Object.entries({ defaults: {}, start: startSettings }).filter(
  ([name]) => !process.env.BENCH_ENV || process.env.BENCH_ENV === name,
)
console.log(`idle ${IDLE_SECONDS} s; pnpm start sets ${JSON.stringify(startSettings)}`)
for (const [name, settings] of runs) {
  const dataDir = mkdtempSync(join(tmpdir(), 'kcore-idle-'))
  try {
    await measure(`${name}, first start (seeds)`, dataDir, settings)
    await measure(`${name}, restart`, dataDir, settings)
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}
