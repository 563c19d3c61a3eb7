import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { emptyCluster } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../src/program.js'
import { waitUntil } from './wait-until.js'

// The command line in a pipe and under a supervisor: `kcore export … | head`, and SIGTERM sent
// to `pnpm start` (what a container runtime or systemd sends to the process it started).

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const BIN = join(ROOT, 'packages/cli/bin/kcore.js')
const FILE = join(ROOT, '../shared/data/caida/19980101.as-rel.txt.bz2')

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kcore-pipes-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** This process's environment less DATABASE_URL, which would point kcore at PostgreSQL. */
function withoutDatabaseUrl(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _, ...rest } = process.env
  return rest
}

/** Resolves with the exit code and everything written to stderr. */
async function exited(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = ''
  child.stderr?.on('data', (chunk) => (stderr += chunk))
  const [code] = await once(child, 'exit')
  return { code, stderr }
}

describe('kcore export | head', () => {
  it('exits 0 without a stack trace when the reader stops early', async () => {
    const dataDir = await emptyCluster(join(dir, 'export-db'))
    const quiet = { write: () => true }
    const env = { KCORE_LOG_LEVEL: 'silent' }
    expect(
      await main(['ingest', '--data-dir', dataDir, FILE], { env, stdout: quiet, stderr: quiet }),
    ).toBe(0)
    // NDJSON of 3,233 ASes is ~200 KB, over a pipe's 64 KB buffer: writes are still pending
    // when `head` exits. A real shell pipe (bash, for PIPESTATUS): kcore's exit code is the one
    // a `set -o pipefail` script sees.
    const child = spawn(
      'bash',
      [
        '-c',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${…}, not a template
        '"$0" "$1" export 1998-01-01 --format ndjson --data-dir "$2" | head -2 >/dev/null; exit "${PIPESTATUS[0]}"',
        process.execPath,
        BIN,
        dataDir,
      ],
      {
        // Without DATABASE_URL (CI sets it): the export reads the data directory just written.
        env: { ...withoutDatabaseUrl(), ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    )
    const { code, stderr } = await exited(child)
    expect(stderr).toBe('')
    expect(code).toBe(0)
  }, 120_000)
})

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  await new Promise((r) => server.close(r))
  return port
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

/** Processes (of this user) whose environment holds `marker`: the ones this test started. */
async function processesWith(marker: string): Promise<number[]> {
  const pids: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const environ = await readFile(`/proc/${entry}/environ`, 'utf8').catch(() => '')
    if (environ.includes(marker)) pids.push(Number(entry))
  }
  return pids
}

describe('pnpm start', () => {
  it('passes SIGTERM to the server, which shuts down and leaves no process behind', async () => {
    const port = await freePort()
    const dataDir = await emptyCluster(join(dir, 'start-db'))
    const child = spawn('pnpm', ['start'], {
      cwd: ROOT,
      env: {
        ...withoutDatabaseUrl(),
        PORT: String(port),
        HOST: '127.0.0.1',
        KCORE_DATA_DIR: dataDir,
        KCORE_SEED: 'false',
        KCORE_SCHEDULER_ENABLED: 'false',
        KCORE_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const done = exited(child)
    let output = ''
    child.stdout?.on('data', (chunk) => (output += chunk))
    child.stderr?.on('data', (chunk) => (output += chunk))
    try {
      // The start script builds what is stale first, then the server opens its database.
      await waitUntil(
        'the server to listen',
        async () => {
          if (child.exitCode !== null)
            throw new Error(`pnpm start exited ${child.exitCode}:\n${output}`)
          return accepts(port)
        },
        { timeoutMs: 240_000 },
      ).catch((error) => {
        throw new Error(`${error.message}\n${output}`)
      })
      child.kill('SIGTERM')
      const { stderr } = await done
      expect(stderr).toContain('"msg":"shutting down"')
      // The server itself is gone, not just pnpm: the port is closed and nothing of ours runs.
      expect(await accepts(port)).toBe(false)
      expect(await processesWith(`KCORE_DATA_DIR=${dataDir}`)).toEqual([])
    } finally {
      for (const pid of await processesWith(`KCORE_DATA_DIR=${dataDir}`))
        process.kill(pid, 'SIGKILL')
    }
  }, 300_000)
})
