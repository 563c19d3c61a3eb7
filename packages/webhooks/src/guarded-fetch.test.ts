import { once } from 'node:events'
import { createServer } from 'node:http'
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { guardedFetch } from './guarded-fetch.js'

describe('guardedFetch', () => {
  let hits = 0
  const server = createServer((_, res) => {
    hits++
    res.end('ok')
  })
  let port = 0
  beforeAll(async () => {
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    port = (server.address() as AddressInfo).port
  })
  afterAll(() => new Promise((r) => server.close(r)))

  /** The cause's message of a fetch that must fail. */
  async function failure(promise: Promise<unknown>): Promise<string> {
    const error = await promise.then(
      () => undefined,
      (e: Error) => e,
    )
    expect(error).toBeInstanceOf(Error)
    return String((error as Error & { cause?: Error }).cause?.message ?? (error as Error).message)
  }

  it('refuses to connect where a name resolves to a non-public address', async () => {
    // The name a subscription checked as public, now pointing at this machine.
    let calls = 0
    const guarded = guardedFetch(async () => {
      calls++
      return [{ address: '127.0.0.1' }]
    })
    try {
      const reason = await failure(
        guarded.fetch(`http://rebound.example:${port}/`, { method: 'POST', body: '{}' }),
      )
      expect(reason).toContain('non-public address (127.0.0.1)')
      expect(calls).toBeGreaterThan(0)
      expect(hits).toBe(0)
      // One public address among private ones does not make the name safe.
      const mixed = guardedFetch(async () => [
        { address: '93.184.216.34' },
        { address: '10.0.0.1' },
      ])
      expect(await failure(mixed.fetch(`http://mixed.example:${port}/`))).toContain('10.0.0.1')
      await mixed.close()
    } finally {
      await guarded.close()
    }
  })

  it('checks the address it connected to: a literal non-public host gets no request', async () => {
    // Literal addresses are never looked up, so the lookup cannot judge them: the socket can.
    const guarded = guardedFetch(async () => {
      throw new Error('a literal address is never looked up')
    })
    try {
      for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]']) {
        const reason = await failure(
          guarded.fetch(`http://${host}:${port}/`, { method: 'POST', body: '{}' }),
        )
        expect(reason).toMatch(/connected to a non-public address \((::ffff:)?127\.0\.0\.1\)/)
      }
      expect(hits).toBe(0)
    } finally {
      await guarded.close()
    }
  })

  it('drops a TLS connection to a non-public address before its first byte', async () => {
    const received: number[] = []
    let closed = 0
    const tcp = createTcpServer((socket: Socket) => {
      const at = received.push(0) - 1
      socket.on('data', (chunk) => {
        received[at] = (received[at] ?? 0) + chunk.length
      })
      socket.on('close', () => closed++)
      socket.on('error', () => {})
    })
    tcp.listen(0, '127.0.0.1')
    await once(tcp, 'listening')
    const tlsPort = (tcp.address() as AddressInfo).port
    const guarded = guardedFetch()
    try {
      const reason = await failure(guarded.fetch(`https://127.0.0.1:${tlsPort}/`))
      expect(reason).toContain('non-public address')
      // The server saw the TCP connection end without a ClientHello (or anything else).
      await vi.waitFor(() => expect(closed).toBe(received.length))
      expect(received.every((bytes) => bytes === 0)).toBe(true)
    } finally {
      await guarded.close()
      await new Promise((r) => tcp.close(r))
    }
  })

  it('refuses localhost through the system resolver', async () => {
    const guarded = guardedFetch()
    try {
      expect(await failure(guarded.fetch(`http://localhost:${port}/`))).toMatch(/non-public/)
      expect(hits).toBe(0)
    } finally {
      await guarded.close()
    }
  })
})
