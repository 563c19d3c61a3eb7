import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

/** The built command; `pnpm test` builds every package before vitest runs. */
export const KCORE_BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url))

/** How a child process ended. */
export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

/** A JSON answer of one of the servers. */
export interface Answer {
  status: number
  headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
  body: any
}

// Settings the parent environment might carry that would change what the child does.
const OWN_SETTINGS = /^(KCORE_|CAL_|DATABASE_URL$|PORT$|HOST$)/

/** A running `node dist/bin.js …` with its output collected line by line. */
export class KcoreProcess {
  readonly child: ChildProcess
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<Exit>
  private readonly lines: string[] = []
  private readonly watchers = new Set<(line: string) => void>()
  private exit: Exit | undefined

  constructor(args: string[], env: Record<string, string> = {}) {
    if (!existsSync(KCORE_BIN)) {
      throw new Error(`${KCORE_BIN} is missing: run \`pnpm -r build\` before these tests`)
    }
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !OWN_SETTINGS.test(key)),
    )
    this.child = spawn(process.execPath, [KCORE_BIN, ...args], {
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (!stream) continue
      createInterface({ input: stream }).on('line', (line) => {
        this.lines.push(line)
        if (this.lines.length > 400) this.lines.shift()
        for (const watch of this.watchers) watch(line)
      })
    }
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal }
        resolve(this.exit)
      })
    })
  }

  get pid(): number {
    return this.child.pid ?? -1
  }

  /** The last lines of stdout and stderr, for failure messages. */
  output(): string {
    return this.lines.slice(-40).join('\n')
  }

  /**
   * Resolves with the first JSON log line (from now on) for which `match` is true; rejects when
   * the process exits first or after `timeoutMs`.
   */
  waitForLog(
    match: (entry: Record<string, unknown>) => boolean,
    timeoutMs = 60_000,
  ): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer)
        this.watchers.delete(watch)
      }
      const watch = (line: string) => {
        const entry = parseJsonLine(line)
        if (entry && match(entry)) {
          done()
          resolve(entry)
        }
      }
      const timer = setTimeout(() => {
        done()
        reject(new Error(`no matching log line within ${timeoutMs} ms:\n${this.output()}`))
      }, timeoutMs)
      this.watchers.add(watch)
      void this.exited.then((exit) => {
        done()
        reject(new Error(`kcore exited (${JSON.stringify(exit)}) first:\n${this.output()}`))
      })
    })
  }

  /** Sends `signal` (no-op once exited) and waits for the exit. */
  async kill(signal: NodeJS.Signals): Promise<Exit> {
    if (!this.exit) this.child.kill(signal)
    return this.exited
  }
}

/** `kcore serve` on the embedded database in `dataDir`: any free port, no seed, no scheduler. */
export function embeddedServeArgs(dataDir: string): string[] {
  return [
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--data-dir',
    dataDir,
    '--no-seed',
    '--no-scheduler-enabled',
  ]
}

/**
 * `kcore serve` on `dataDir` as a newcomer's first start: any free port, seeding on, no
 * scheduler, info logs (`test/first-start*.slow.test.ts`).
 */
export const serveFresh = (dataDir: string, env: Record<string, string> = {}) =>
  new KcoreProcess(['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir], {
    KCORE_SCHEDULER_ENABLED: 'false',
    KCORE_LOG_LEVEL: 'info',
    ...env,
  })

/** What {@link startServer} needs. */
export interface ServerOptions {
  databaseUrl: string
  providerUrl: string
  /** Five-field cron; the scheduler is disabled when absent. */
  schedule?: string
  adminToken?: string
  calTokens?: string[]
}

/** A `kcore serve` process that answered its health check. */
export interface KcoreServer {
  readonly process: KcoreProcess
  readonly baseUrl: string
  /** Calls the server; `json` becomes the body, `token` the bearer token. */
  call(path: string, init?: { method?: string; json?: unknown; token?: string }): Promise<Answer>
  /** SIGTERM (graceful shutdown) and wait. */
  stop(): Promise<Exit>
}

/**
 * Starts `kcore serve` on a port the OS picks (`--port 0`), waits for its `listening` log line
 * and checks `GET /api/health` on PostgreSQL.
 */
export async function startServer(options: ServerOptions): Promise<KcoreServer> {
  const args = [
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--database-url',
    options.databaseUrl,
    '--provider-url',
    options.providerUrl,
    '--log-level',
    'info',
  ]
  if (options.schedule) args.push('--schedule', options.schedule)
  else args.push('--no-scheduler-enabled')
  const env: Record<string, string> = {}
  if (options.adminToken) env.KCORE_ADMIN_TOKEN = options.adminToken
  if (options.calTokens) env.CAL_API_TOKENS = options.calTokens.join(',')
  const child = new KcoreProcess(args, env)
  try {
    const listening = await child.waitForLog((entry) => entry.msg === 'listening')
    const port = new URL(String(listening.url)).port
    const server = serverAt(child, `http://127.0.0.1:${port}`)
    const health = await server.call('/api/health')
    if (health.status !== 200 || health.body?.database?.dialect !== 'postgres') {
      throw new Error(`unhealthy server: ${health.status} ${JSON.stringify(health.body)}`)
    }
    return server
  } catch (error) {
    await child.kill('SIGKILL')
    throw error
  }
}

function serverAt(child: KcoreProcess, baseUrl: string): KcoreServer {
  return {
    process: child,
    baseUrl,
    async call(path, init = {}) {
      const headers: Record<string, string> = {}
      if (init.json !== undefined) headers['content-type'] = 'application/json'
      if (init.token) headers.authorization = `Bearer ${init.token}`
      const res = await fetch(`${baseUrl}${path}`, {
        method: init.method ?? 'GET',
        headers,
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      })
      const text = await res.text()
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined }
    },
    stop: () => child.kill('SIGTERM'),
  }
}

function parseJsonLine(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined
  try {
    return JSON.parse(line)
  } catch {
    return undefined
  }
}
