import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { ClaimedMessage } from './claim-messages.js'
import { type AttemptContext, sendAttempt } from './send-attempt.js'

describe('sendAttempt against hostile receivers', () => {
  const hits = new Map<string, number>()
  let endlessClosed = false
  let written = 0
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    // An answer that never ends: a 2xx, then bytes for as long as anyone reads.
    '/endless': (req, res) => {
      req.socket.on('close', () => {
        endlessClosed = true
      })
      res.writeHead(200, { 'content-type': 'application/octet-stream' })
      const chunk = Buffer.alloc(64 * 1024)
      const pump = () => {
        while (res.write(chunk)) written += chunk.length
        written += chunk.length
      }
      res.on('drain', pump)
      pump()
    },
    '/redirect': (_, res) => {
      res.writeHead(302, { location: `${base}/private` }).end()
    },
    '/private': (_, res) => res.end('reached'),
    '/hang': () => {},
  }
  const server = createServer((req, res) => {
    hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1)
    req.resume()
    routes[req.url ?? '']?.(req, res)
  })
  let base = ''
  beforeAll(async () => {
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => {
    server.closeAllConnections()
    return new Promise((r) => server.close(r))
  })

  const message = (path: string): ClaimedMessage => ({
    id: 'msg_1',
    type: 'event.created',
    payloadJson: '{"id":1}',
    created: new Date('2026-01-01T00:00:00Z'),
    secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
    subscriptionId: 'wh_1',
    url: `${base}${path}`,
    attempts: 0,
    lease: 'lease',
  })
  const context = (overrides: Partial<AttemptContext> = {}): AttemptContext => ({
    send: fetch,
    timeoutMs: 10_000,
    closing: new AbortController().signal,
    allowPrivate: true,
    lookup: undefined,
    now: () => new Date(),
    ...overrides,
  })

  it('delivers on the status of an endless 2xx answer and closes it unread', async () => {
    const outcome = await sendAttempt(message('/endless'), context())
    expect(outcome).toMatchObject({ status: 200, delivered: true, error: null })
    // The connection is closed rather than drained: the receiver cannot hold the sender.
    await vi.waitFor(() => expect(endlessClosed).toBe(true))
    expect(written).toBeGreaterThan(0)
  })

  it('takes a redirect (to a private address here) as a failed answer, never following it', async () => {
    const outcome = await sendAttempt(message('/redirect'), context())
    expect(outcome).toMatchObject({ status: 302, delivered: false, error: 'HTTP 302' })
    expect(hits.get('/private')).toBeUndefined()
  })

  it('gives up on a receiver that never answers at the timeout, and on close at once', async () => {
    const timedOut = await sendAttempt(message('/hang'), context({ timeoutMs: 50 }))
    expect(timedOut).toMatchObject({ status: null, delivered: false, interrupted: false })
    expect(timedOut.error).toBe('no answer within 50 ms')

    const closing = new AbortController()
    const attempt = sendAttempt(message('/hang'), context({ closing: closing.signal }))
    await vi.waitFor(() => expect(hits.get('/hang')).toBe(2))
    closing.abort()
    expect(await attempt).toMatchObject({
      status: null,
      interrupted: true,
      error: 'sender closed before an answer',
    })
  })

  it('refuses a private target before any request when private targets are not allowed', async () => {
    const outcome = await sendAttempt(message('/private'), context({ allowPrivate: false }))
    expect(outcome.delivered).toBe(false)
    expect(outcome.error).toMatch(/non-public address \(127\.0\.0\.1\)/)
    expect(hits.get('/private')).toBeUndefined()
  })
})
