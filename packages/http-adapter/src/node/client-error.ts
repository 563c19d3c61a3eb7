import type { EventEmitter } from 'node:events'
import type { Duplex } from 'node:stream'

/** Status of each parser error Node raises before a request reaches the handler. */
function statusOf(code: string | undefined): [number, string, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'Request Header Fields Too Large', 'request_header_fields_too_large']
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request Timeout', 'request_timeout']
    default:
      return [400, 'Bad Request', 'bad_request']
  }
}

const MESSAGES: Record<number, string> = {
  400: 'The request could not be parsed as HTTP/1.1 (framing, method or request line)',
  408: 'The request was not received in time',
  431: 'The request line or headers are too large',
}

/**
 * The raw HTTP/1.1 answer to an error Node's parser raised: the common JSON envelope with
 * `Connection: close` (the framing is unknown after a parse error, so the socket cannot be
 * reused).
 */
export function clientErrorResponse(error: { code?: string }): string {
  const [status, reason, code] = statusOf(error.code)
  const body = JSON.stringify({ error: code, message: MESSAGES[status], status })
  return [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'X-Content-Type-Options: nosniff',
    'Connection: close',
    '',
    body,
  ].join('\r\n')
}

/**
 * Makes a Node HTTP server answer its own errors (headers too large, bad framing, unknown
 * methods, a NUL in the request line) with the JSON envelope instead of an empty or plain-text
 * body. Both `kcore serve` and the Node example host install it.
 */
export function answerClientErrorsAsJson(server: EventEmitter): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A peer that is gone, or a response already under way, gets nothing more.
    if (error.code === 'ECONNRESET' || !socket.writable || socket.writableLength > 0) {
      socket.destroy()
      return
    }
    socket.end(clientErrorResponse(error))
  })
}
