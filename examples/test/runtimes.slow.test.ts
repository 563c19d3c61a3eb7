import { type ChildProcess, spawn } from 'node:child_process'
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { emptyCluster, rotatingSample } from '@kcore/db/testing'
import { afterAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../../packages/http-adapter/test/chromium.js'

// Starts each example host for real (Node, Bun and Deno from their npm packages) on an
// embedded PGlite database and calls both APIs through it. Needs the packages built
// (`pnpm test:all` builds first).
const examples = fileURLToPath(new URL('..', import.meta.url))
// The runtimes' own binaries, as the README shows: the node_modules/.bin shims put a shell
// (bun) or a Node wrapper (deno) between the PID and the server and do not forward SIGTERM.
const modules = (...path: string[]) => join(examples, 'node_modules', ...path)
const sample = fileURLToPath(
  new URL('../../packages/service/data/19980101.as-rel.txt.bz2', import.meta.url),
)

const runtimes = [
  { name: 'node', command: process.execPath, args: ['--import', 'tsx', 'node-server.ts'] },
  { name: 'bun', command: modules('bun', 'bin', 'bun.exe'), args: ['bun-server.ts'] },
  { name: 'deno', command: modules('deno', 'deno'), args: ['run', '-A', 'deno-server.ts'] },
]

/**
 * The URL the host prints once it listens (each listens on port 0: the system picks a free
 * port, no other process can take it first), after which it answers health.
 */
async function waitForListening(child: ChildProcess, output: () => string): Promise<string> {
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', () => reject(new Error(`server exited early:\n${output()}`))),
  )
  const listening = new Promise<string>((resolve) => {
    const look = () => {
      const port = /[Ll]istening on https?:\/\/[^:\s]+:(\d+)/.exec(output())?.[1]
      if (port) {
        child.stdout?.off('data', look)
        child.stderr?.off('data', look)
        resolve(`http://127.0.0.1:${port}`)
      }
    }
    child.stdout?.on('data', look)
    child.stderr?.on('data', look)
  })
  return Promise.race([listening, exited])
}

const temps: string[] = []
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })))
})

/** Whether any process of `pid`'s group is still alive. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * SIGTERM to the PID that was started (what a supervisor does), then waits until its whole
 * process group has exited: a server left running in the group fails the test (after SIGKILL).
 */
async function stopByPid(child: ChildProcess): Promise<void> {
  const pid = child.pid
  if (pid === undefined) return
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
  // Bounded only so that a held server fails the test with its own message (and is killed).
  for (let i = 0; groupAlive(pid); i++) {
    if (i === 1_200) {
      process.kill(-pid, 'SIGKILL')
      throw new Error(`the ${child.spawnfile} server group outlived SIGTERM to its PID by 60 s`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
}

// The page's first chart is drawn in Chromium from one host a run (each in `pnpm test:full`);
// every host serves the page and its bundle.
const drawing = rotatingSample(
  'hosts whose page Chromium draws',
  runtimes.map((r) => r.name),
  1,
)

// Each host is a process of its own, with its own data directory and port: they run side by side.
describe.concurrent.each(runtimes)('the $name host', ({ name, command, args }) => {
  it('serves health, a trend, a calendar list and the explorer page from one handler', async () => {
    const base = await mkdtemp(join(tmpdir(), 'kcore-rt-'))
    const dataDir = await emptyCluster(join(base, 'data'))
    const seedDir = await mkdtemp(join(tmpdir(), 'kcore-seed-'))
    temps.push(base, seedDir)
    await copyFile(sample, join(seedDir, '19980101.as-rel.txt.bz2'))
    const child = spawn(command, args, {
      cwd: examples,
      env: {
        ...process.env,
        DATABASE_URL: '',
        PORT: '0',
        HOST: '127.0.0.1',
        KCORE_DATA_DIR: dataDir,
        KCORE_SEED_DIR: seedDir,
        KCORE_SCHEDULER_ENABLED: 'false',
        KCORE_LOG_LEVEL: 'warn',
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so the test can see anything left running after SIGTERM.
      detached: true,
    })
    let output = ''
    child.stdout?.on('data', (d) => (output += d))
    child.stderr?.on('data', (d) => (output += d))
    try {
      const base = await waitForListening(child, () => output)
      const health = await (await fetch(`${base}/api/health`)).json()
      expect(health).toMatchObject({
        status: 'healthy',
        data_status: 'available',
        database: { dialect: 'pglite' },
      })

      const trend = await fetch(`${base}/api/trends/701?ip_version=ipv4`)
      expect(trend.status).toBe(200)
      const body = (await trend.json()) as { trend_data: { date: string; shell_index: number }[] }
      expect(body.trend_data.map((p) => p.date)).toEqual(['1998-01-01'])
      expect(body.trend_data[0]?.shell_index).toBeGreaterThan(0)

      const events = await fetch(`${base}/cal/events/v1/events`)
      expect(events.status).toBe(200)
      expect(Number(events.headers.get('x-cal-total'))).toBeGreaterThan(0)
      const list = (await events.json()) as { events: { title: string }[] }
      expect(list.events.length).toBeGreaterThan(0)

      // The trend explorer page and its bundle, from the same handler.
      const page = await fetch(`${base}/`)
      expect(page.status).toBe(200)
      const html = await page.text()
      const script = /<script type="module" src="(\/assets\/explorer-\w+\.js)">/.exec(html)?.[1]
      expect(script).toBeDefined()
      const bundle = await fetch(`${base}${script}`)
      expect(bundle.status).toBe(200)
      expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
      expect((await bundle.text()).length).toBeGreaterThan(10_000)
      // ... and its first chart, drawn in Chromium from this host, holds the API's points.
      if (!drawing.includes(name)) return
      const browser = await launchChromium()
      try {
        const tab = await browser.context.newPage()
        await tab.goto(`${base}/?asns=701&ip_version=ipv4`)
        await tab.waitForSelector('#trend-chart[data-state="ready"]')
        const held = JSON.parse((await tab.getAttribute('#trend-chart', 'data-points')) ?? '{}')
        expect(held.AS701).toEqual(body.trend_data.map((p) => [p.date, p.shell_index]))
      } finally {
        await browser.close()
      }
    } finally {
      await stopByPid(child)
    }
  }, 180_000)
})
