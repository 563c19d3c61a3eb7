import { connect, type LookupFunction, type Socket } from 'node:net'
import { buildConnector } from 'undici'
import { isPublicAddress } from './webhook-target.js'

/** How long a TCP connection may take to open (undici's own default). */
const CONNECT_TIMEOUT_MS = 10_000

/**
 * An undici connector that opens the TCP connection itself (names resolved by `lookup`), checks
 * the address it reached (`socket.remoteAddress`) and only then hands the socket on: as is for
 * `http:`, to undici's own TLS connector for `https:`. A connection to a non-public address is
 * closed before anything is written on it, not even a TLS ClientHello.
 */
export function checkedConnector(
  lookup: LookupFunction,
  seams: {
    /** Which remote addresses may be talked to; default {@link isPublicAddress}. */
    allowed?: ((address: string) => boolean) | undefined
    /** undici's TLS options (tests pass the `ca` of a local receiver). */
    tls?: buildConnector.BuildOptions | undefined
  } = {},
): buildConnector.connector {
  const allowed = seams.allowed ?? isPublicAddress
  const tls = buildConnector(seams.tls ?? {})
  return (options, callback) => {
    const https = options.protocol === 'https:'
    const socket: Socket = connect({
      host: options.hostname,
      port: Number(options.port) || (https ? 443 : 80),
      lookup,
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    })
    let done = false
    const fail = (error: Error) => {
      if (done) return
      done = true
      socket.destroy()
      callback(error, null)
    }
    socket.setTimeout(CONNECT_TIMEOUT_MS, () =>
      fail(
        Object.assign(new Error(`connect to ${options.hostname} timed out`), {
          code: 'UND_ERR_CONNECT_TIMEOUT',
        }),
      ),
    )
    socket.once('error', fail)
    socket.once('connect', () => {
      socket.setTimeout(0)
      socket.off('error', fail)
      const address = socket.remoteAddress ?? ''
      if (!allowed(address))
        return fail(new Error(`${options.hostname} connected to a non-public address (${address})`))
      done = true
      if (https) return tls({ ...options, httpSocket: socket }, callback)
      socket.setNoDelay(true)
      socket.setKeepAlive(true, 60_000)
      callback(null, socket)
    })
  }
}
