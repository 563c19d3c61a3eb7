import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  coreNumbers,
  createProvider,
  parseAsRel,
  type SnapshotProvider,
  toGraph,
} from '@kcore/engine'
import {
  createScheduler,
  createSyncRunner,
  type KcoreStore,
  type SchedulerOptions,
} from '@kcore/store'
import { clearKcoreTables, openStore, type TestStore } from '@kcore/store/testing'
import { caidaDir as CAIDA_DIR } from '../../engine/test/caida-data.js'
import { createHandler, type Handler } from '../src/index.js'
import type { KcoreApiOptions } from '../src/kcore/index.js'

export { CAIDA_DIR }

/** A real CAIDA IPv4 file by its date, e.g. `caidaFile('19980101')`. */
export const caidaFile = (yyyymmdd: string) => join(CAIDA_DIR, `${yyyymmdd}.as-rel.txt.bz2`)

/** Core numbers of one ASN in a real file, computed with graphology-cores (independent of the store). */
export async function expectedShell(
  path: string,
  asn: number,
): Promise<{ shell: number | undefined; max: number }> {
  const graph = toGraph(await parseAsRel(new Uint8Array(await readFile(path))))
  const cores = coreNumbers(graph)
  let max = 0
  for (const k of cores.values()) max = Math.max(max, k)
  return { shell: cores.get(String(asn)), max }
}

export { openStore, type TestStore }

/** Empties every k-core table (between tests sharing one database). */
export const clearStore = (store: TestStore) => clearKcoreTables(store.database)

/** A provider that offers nothing (for tests that never refresh). */
export const emptyProvider: SnapshotProvider = {
  list: async () => [],
  open: async () => {
    throw new Error('nothing to open')
  },
}

/**
 * A handler serving only the k-core API. With `schedule`, an update scheduler over the API's
 * runner, built and closed here as a host does (`@kcore/service`): the API itself starts none.
 */
export function kcoreHandler(
  store: KcoreStore,
  { schedule, ...options }: Partial<KcoreApiOptions> & { schedule?: SchedulerOptions } = {},
): Handler {
  const provider = options.provider ?? emptyProvider
  const runner =
    options.runner ?? createSyncRunner(store, provider, { deadlineMs: options.refreshDeadlineMs })
  const now = options.now ?? (() => new Date())
  const scheduler = schedule
    ? createScheduler(schedule, { runner, now, onError: () => {} })
    : undefined
  const handler = createHandler({
    kcore: { store, provider, version: '9.9.9-test', runner, scheduler, ...options },
  })
  return Object.assign((request: Request) => handler(request), {
    async close() {
      await scheduler?.close()
      await handler.close()
    },
  })
}

/** Calls a handler with a path under `http://localhost`. */
export function caller(handler: Handler) {
  return async (path: string, init?: RequestInit & { json?: unknown }) => {
    const { json, ...rest } = init ?? {}
    const request = new Request(`http://localhost${path}`, {
      ...rest,
      ...(json !== undefined
        ? {
            body: JSON.stringify(json),
            headers: { 'content-type': 'application/json', ...(rest.headers ?? {}) },
          }
        : {}),
    })
    const response = await handler(request)
    const text = await response.text()
    let body: unknown
    try {
      body = text ? JSON.parse(text) : undefined
    } catch {
      body = text
    }
    // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected freely
    return { status: response.status, headers: response.headers, body: body as any }
  }
}

/** A temporary mirror folder with the CAIDA `serial-1/` layout. */
export interface Mirror {
  dir: string
  serial1: string
  /** `file:///…/` URL of the mirror. */
  url: string
  /** Copies a real file into `serial-1/` under another CAIDA name (re-dated). */
  add(source: string, name: string): Promise<void>
  /** Writes raw bytes as a snapshot file. */
  write(name: string, bytes: Uint8Array | string): Promise<void>
  remove(): Promise<void>
}

/** Creates an empty mirror folder. */
export async function createMirror(): Promise<Mirror> {
  const dir = await mkdtemp(join(tmpdir(), 'kcore-api-mirror-'))
  const serial1 = join(dir, 'serial-1')
  await mkdir(serial1)
  return {
    dir,
    serial1,
    url: `${pathToFileURL(dir).href}/`,
    add: (source, name) => copyFile(source, join(serial1, name)),
    write: (name, bytes) => writeFile(join(serial1, name), bytes),
    remove: () => rm(dir, { recursive: true, force: true }),
  }
}

/** A real HTTP server on 127.0.0.1 serving a mirror with an Apache-style index. */
export interface MirrorServer {
  url: string
  /** Files answered with this status instead of their bytes. */
  failures: Map<string, number>
  /** Requests seen, by path. */
  requests: string[]
  close(): Promise<void>
}

/** Serves `mirror` the way publicdata.caida.org does (truncated link text, real href). */
export async function serveMirror(mirror: Mirror): Promise<MirrorServer> {
  const failures = new Map<string, number>()
  const requests: string[] = []
  const server: Server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
    requests.push(path)
    try {
      if (path === '/serial-1/') {
        const names = (await readdir(mirror.serial1)).sort()
        const rows = names
          .map((n) => {
            const shown = n.length > 23 ? `${n.slice(0, 20)}..&gt;` : n
            return `<tr><td valign="top"><img src="/icons/unknown.gif" alt="[   ]"></td><td><a href="${encodeURIComponent(n)}">${shown}</a></td><td align="right">2024-08-01 10:00  </td><td align="right">1.2M</td></tr>`
          })
          .join('\n')
        res.writeHead(200, { 'content-type': 'text/html;charset=UTF-8' })
        res.end(
          `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN"><html><head><title>Index of /datasets/as-relationships/serial-1</title></head><body><h1>Index of /datasets/as-relationships/serial-1</h1><table><tr><th><a href="?C=N;O=D">Name</a></th></tr><tr><td><a href="/datasets/as-relationships/">Parent Directory</a></td></tr>\n${rows}\n</table></body></html>`,
        )
        return
      }
      const name = path.startsWith('/serial-1/') ? path.slice('/serial-1/'.length) : undefined
      const failure = name ? failures.get(name) : undefined
      if (failure) {
        res.writeHead(failure, { 'content-type': 'text/plain' })
        res.end('failure injected by the test')
        return
      }
      if (!name || name.includes('/')) throw new Error('not found')
      const bytes = await readFile(join(mirror.serial1, name))
      res.writeHead(200, { 'content-type': 'application/x-bzip2', 'content-length': bytes.length })
      res.end(bytes)
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' })
      res.end('not found')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    failures,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}

/** An HTTP provider with fast, bounded retries (tests). */
export const httpProvider = (url: string) =>
  createProvider({ baseUrl: url, retries: 1, retryDelayMs: 5, timeoutMs: 10_000 })

/** A file:// provider over a mirror. */
export const fileProvider = (mirror: Mirror) => createProvider({ baseUrl: mirror.url })

/**
 * Wraps a provider so that `list()` waits until `release()` is called: lets a test hold a
 * refresh in flight without timing assumptions.
 */
export function gatedProvider(inner: SnapshotProvider) {
  let release!: () => void
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  let entered!: () => void
  const listing = new Promise<void>((resolve) => {
    entered = resolve
  })
  const provider: SnapshotProvider = {
    async list(ipVersion, options) {
      entered()
      await gate
      return inner.list(ipVersion, options)
    },
    open: (ref, options) => inner.open(ref, options),
  }
  return { provider, release, listing }
}
