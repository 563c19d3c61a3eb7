import type { AddressInfo } from 'node:net'
import { type ServerType, serve } from '@hono/node-server'
import { answerClientErrorsAsJson } from './client-error.js'

/** What `listen` serves: any fetch-style handler (the kcore handler, a Hono app's `fetch`, …). */
export type FetchHandler = (request: Request) => Response | Promise<Response>

export interface ListenOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number
  /** Interface to bind; the default is every interface, as Node's `listen`. */
  hostname?: string
}

/** A running node:http server. */
export interface NodeListener {
  readonly server: ServerType
  /** The bound port (the one picked when `port` was 0). */
  readonly port: number
  /** `http://localhost:PORT`, for logs and tests. */
  readonly url: string
  /** Stops accepting, ends idle keep-alive sockets, and resolves once every socket is closed. */
  close(): Promise<void>
}

/**
 * Serves a fetch-style handler on node:http: @hono/node-server's Request/Response bridge, plus
 * parser errors (431, bad framing) answered with the JSON envelope. Resolves once listening;
 * rejects when the port cannot be bound (e.g. `EADDRINUSE`), leaving nothing open.
 */
export function listen(handler: FetchHandler, options: ListenOptions = {}): Promise<NodeListener> {
  return new Promise((resolve, reject) => {
    const server = serve({
      fetch: handler,
      port: options.port ?? 0,
      ...(options.hostname === undefined ? {} : { hostname: options.hostname }),
    })
    answerClientErrorsAsJson(server)
    server.once('error', reject)
    server.once('listening', () => {
      server.off('error', reject)
      const { port } = server.address() as AddressInfo
      resolve({
        server,
        port,
        url: `http://localhost:${port}`,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()))
            // Keep-alive sockets with no request in flight would hold close() open.
            if ('closeIdleConnections' in server) server.closeIdleConnections()
          }),
      })
    })
  })
}
