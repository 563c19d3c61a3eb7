import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

/** One request the receiver got, and whether its signature verified. */
export interface Received {
  path: string
  headers: Record<string, string>
  body: string
  verified: boolean
  /** The verified body, parsed. */
  message?: { type: string; timestamp: string; data: unknown }
}

/** What to answer: a status, or `'hang'` to never answer (until the receiver closes). */
export type Answer = number | 'hang'

/**
 * A local webhook receiver (node:http) that verifies every request with `standardwebhooks`'
 * `Webhook.verify`, against the secret registered for its path.
 */
export async function startReceiver(answer: (request: Received, n: number) => Answer = () => 200) {
  const secrets = new Map<string, string>()
  const received: Received[] = []
  const hanging = new Set<ServerResponse>()
  let waiters: (() => void)[] = []

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')]),
    )
    const path = req.url ?? '/'
    const request: Received = { path, headers, body, verified: false }
    const secret = secrets.get(path)
    try {
      if (secret) {
        request.message = new Webhook(secret).verify(body, headers) as Received['message']
        request.verified = true
      }
    } catch {}
    received.push(request)
    for (const wake of waiters) wake()
    waiters = []
    const reply = answer(request, received.length)
    if (reply === 'hang') {
      hanging.add(res)
      return
    }
    res.writeHead(reply, { 'content-type': 'text/plain' }).end('ok')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo

  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    /** Registers the secret requests to `path` are verified with. */
    secret(path: string, secret: string) {
      secrets.set(path, secret)
    },
    received,
    /** Requests that got no answer yet. */
    get hanging() {
      return hanging.size
    },
    /** Resolves once `predicate` holds over what was received (checked on each request). */
    async until(predicate: (received: Received[]) => boolean, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs
      while (!predicate(received)) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met in ${timeoutMs} ms`)
        await Promise.race([
          new Promise<void>((r) => waiters.push(r)),
          new Promise((r) => setTimeout(r, 50)),
        ])
      }
    },
    async close() {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>
