import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { pathToFileURL } from 'node:url'

import { caidaDir as CAIDA_DIR } from '../../engine/test/caida-data.js'

export { CAIDA_DIR }

/** A real CAIDA file of the shared folder by name, e.g. `caida('19980101.as-rel.txt.bz2')`. */
export const caida = (name: string) => join(CAIDA_DIR, name)

/**
 * A local CAIDA-style provider: a temporary `serial-1/` folder, served over HTTP as directory
 * index pages and files (and usable as `file://` too). Listing requests can be held at a gate,
 * and the mirror records how many requests were ever in flight at once: every provider request
 * of a refresh happens under the refresh lock, so more than one means two holders.
 */
export interface SnapshotMirror {
  /** `http://127.0.0.1:PORT/` */
  readonly url: string
  /** `file:///…/` of the same folder. */
  readonly fileUrl: string
  /** Most provider requests (listings and downloads) ever served at the same time. */
  readonly maxConcurrent: number
  /** Most listing requests ever served at the same time (each refresh lists once). */
  readonly maxConcurrentListings: number
  /** Offers a real file under its own name. */
  offer(path: string): Promise<void>
  /** Holds every listing request from now on until the returned gate is released. */
  holdListings(): ListingGate
  close(): Promise<void>
}

/** Listing requests held by {@link SnapshotMirror.holdListings}. */
export interface ListingGate {
  /** Resolves once `n` listing requests are held at the same time. */
  heldAtOnce(n: number): Promise<void>
  /** Answers the held requests and stops holding. */
  release(): void
}

/** Creates the folder and starts the server on a free port. */
export async function createSnapshotMirror(): Promise<SnapshotMirror> {
  const root = await mkdtemp(join(tmpdir(), 'kcore-mirror-'))
  const folder = join(root, 'serial-1')
  await mkdir(folder)
  let inFlight = 0
  let maxConcurrent = 0
  let listingsInFlight = 0
  let maxConcurrentListings = 0
  let gate: { held: number; waiters: Set<() => void>; open: Promise<void> } | undefined

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://mirror').pathname
    if (path === '/serial-1/') {
      maxConcurrentListings = Math.max(maxConcurrentListings, ++listingsInFlight)
      res.once('close', () => listingsInFlight--)
      const current = gate
      if (current) {
        current.held++
        for (const wake of current.waiters) wake()
        await current.open
        current.held--
      }
      const names = (await readdir(folder)).sort()
      const links = names.map((n) => `<a href="${encodeURIComponent(n)}">${n}</a>`).join('\n')
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(`<html><body><h1>Index of /serial-1</h1>\n${links}\n</body></html>`)
      return
    }
    const match = /^\/serial-1\/([^/]+)$/.exec(path)
    const bytes = match
      ? await readFile(join(folder, decodeURIComponent(match[1]!))).catch(() => undefined)
      : undefined
    if (!bytes) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes)
  }

  const server = createServer((req, res) => {
    maxConcurrent = Math.max(maxConcurrent, ++inFlight)
    res.once('close', () => inFlight--)
    answer(req, res).catch(() => res.writeHead(500).end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}/`,
    fileUrl: pathToFileURL(`${root}/`).href,
    get maxConcurrent() {
      return maxConcurrent
    },
    get maxConcurrentListings() {
      return maxConcurrentListings
    },
    async offer(path) {
      await copyFile(path, join(folder, basename(path)))
    },
    holdListings() {
      let release = () => {}
      const open = new Promise<void>((resolve) => (release = resolve))
      const current = { held: 0, waiters: new Set<() => void>(), open }
      gate = current
      return {
        heldAtOnce(n) {
          return new Promise((resolve) => {
            const check = () => {
              if (current.held < n) return
              current.waiters.delete(check)
              resolve()
            }
            current.waiters.add(check)
            check()
          })
        },
        release() {
          if (gate === current) gate = undefined
          release()
        },
      }
    },
    async close() {
      gate = undefined
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await rm(root, { recursive: true, force: true })
    },
  }
}
