import { readFile } from 'node:fs/promises'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { MALFORMED_FIXTURE } from './fixtures.js'

/**
 * What the server does instead of serving a listed file:
 * - `http-500`: answers HTTP 500 every time;
 * - `reset`: announces the whole length, sends half of it, then destroys the socket;
 * - `stall`: sends the headers and a few bytes, then nothing until the client gives up;
 * - `truncated`: a clean HTTP answer whose body is the first half of the bz2;
 * - `corrupt`: the whole bz2 with bytes flipped in its middle;
 * - `malformed`: a valid bz2 whose text holds a malformed line (`fixtures/malformed-line…`);
 * - `missing`: HTTP 404 although the listing names the file;
 * - `endless`: a 200 with no length whose body repeats the file for ever, as fast as the
 *   client reads it.
 */
export type Fault =
  | 'http-500'
  | 'reset'
  | 'stall'
  | 'truncated'
  | 'corrupt'
  | 'malformed'
  | 'missing'
  | 'endless'

/** A local CAIDA-like provider whose files can be made to fail, one by one. */
export interface FaultProviderServer {
  /** Base URL for `createProvider` (the folder holding `serial-1/`). */
  readonly url: string
  /** Puts a file into `serial-1/` (listed and served); replaces one of the same name. */
  offer(name: string, bytes: Uint8Array): void
  /** Per file name: the fault injected on every request for it until cleared. */
  readonly faults: Map<string, Fault>
  /** The next this-many requests for the `serial-1/` listing answer HTTP 500. */
  listingFailures: number
  /** While true, the `serial-1/` listing sends its headers and a first piece, then nothing. */
  stallListings: boolean
  /** Paths requested, in order (listing and files). */
  readonly requests: string[]
  /** Paths of stalled responses, each time the client gave up on one and closed it. */
  readonly abandoned: string[]
  /** Stops injecting: every file is served whole, every listing answers. */
  clearFaults(): void
  close(): Promise<void>
}

const ROOT = '/datasets/as-relationships/'
const SERIAL_1 = `${ROOT}serial-1/`

/**
 * Starts the server on 127.0.0.1 (a free port). Files are listed in an Apache-style index like
 * publicdata.caida.org's: link text truncated, whole name in the `href`.
 */
export async function startFaultProvider(): Promise<FaultProviderServer> {
  const malformedBytes = await readFile(MALFORMED_FIXTURE)
  const files = new Map<string, Uint8Array>()
  const faults = new Map<string, Fault>()
  const requests: string[] = []
  const abandoned: string[] = []
  const state = { listingFailures: 0, stallListings: false }

  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
    requests.push(path)
    if (path === SERIAL_1) {
      if (state.listingFailures > 0) {
        state.listingFailures--
        return plain(res, 500, 'listing failure injected by the test')
      }
      res.writeHead(200, { 'content-type': 'text/html;charset=UTF-8' })
      if (state.stallListings) {
        res.on('close', () => abandoned.push(path))
        return void res.write('<html><body>')
      }
      return res.end(apacheIndex([...files.keys()].sort()))
    }
    const name = path.startsWith(SERIAL_1) ? path.slice(SERIAL_1.length) : ''
    const bytes = files.get(name)
    if (!bytes) return plain(res, 404, 'not found')
    const half = Math.floor(bytes.length / 2)
    switch (faults.get(name)) {
      case 'http-500':
        return plain(res, 500, 'failure injected by the test')
      case 'missing':
        return plain(res, 404, 'not found')
      case 'reset':
        res.writeHead(200, bz2Headers(bytes.length))
        res.write(bytes.subarray(0, half), () => req.socket.destroy())
        return
      case 'stall':
        // Headers and a first piece arrive, so only the provider's between-chunks timeout ends it.
        res.on('close', () => abandoned.push(path))
        res.writeHead(200, bz2Headers(bytes.length))
        res.write(bytes.subarray(0, Math.min(100, half)))
        return
      case 'truncated':
        res.writeHead(200, bz2Headers(half))
        return res.end(bytes.subarray(0, half))
      case 'corrupt':
        res.writeHead(200, bz2Headers(bytes.length))
        return res.end(flipMiddleBytes(bytes))
      case 'endless': {
        res.writeHead(200, { 'content-type': 'application/x-bzip2' })
        // the file repeated to 64 KiB a write: a fast remote server, not a test-side hot loop
        const piece = Buffer.concat(
          Array.from({ length: Math.ceil(65536 / bytes.length) }, () => bytes),
        )
        const more = () => {
          while (!res.destroyed && res.write(piece));
        }
        res.on('drain', more)
        more()
        return
      }
      case 'malformed':
        res.writeHead(200, bz2Headers(malformedBytes.length))
        return res.end(malformedBytes)
      default:
        res.writeHead(200, bz2Headers(bytes.length))
        return res.end(bytes)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}${ROOT}`,
    offer: (name, bytes) => void files.set(name, bytes),
    faults,
    get listingFailures() {
      return state.listingFailures
    },
    set listingFailures(n: number) {
      state.listingFailures = n
    },
    get stallListings() {
      return state.stallListings
    },
    set stallListings(stall: boolean) {
      state.stallListings = stall
    },
    requests,
    abandoned,
    clearFaults() {
      faults.clear()
      state.listingFailures = 0
      state.stallListings = false
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        // stalled responses would otherwise keep the server open
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}

/** A copy with 16 bytes in the middle inverted: the bz2 header stays, a block breaks. */
export function flipMiddleBytes(bytes: Uint8Array): Uint8Array {
  const copy = bytes.slice()
  const middle = Math.floor(copy.length / 2)
  for (let i = middle; i < Math.min(copy.length, middle + 16); i++) copy[i] = copy[i]! ^ 0xff
  return copy
}

function bz2Headers(length: number) {
  return { 'content-type': 'application/x-bzip2', 'content-length': String(length) }
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain' })
  res.end(text)
}

function apacheIndex(names: string[]): string {
  const rows = names
    .map((name) => {
      const text = name.length > 23 ? `${name.slice(0, 20)}..&gt;` : name
      return `<tr><td valign="top"><img src="/icons/compressed.gif" alt="[   ]"></td><td><a href="${encodeURIComponent(name)}">${text}</a></td><td align="right">2024-08-01 10:00  </td><td align="right">1.2M</td></tr>`
    })
    .join('\n')
  return `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<html><head><title>Index of ${SERIAL_1}</title></head><body>
<h1>Index of ${SERIAL_1}</h1><table>
<tr><th><a href="?C=N;O=D">Name</a></th><th><a href="?C=M;O=A">Last modified</a></th></tr>
<tr><td><a href="${ROOT}">Parent Directory</a></td></tr>
${rows}
<tr><td><a href="README.txt">README.txt</a></td></tr>
</table></body></html>`
}
