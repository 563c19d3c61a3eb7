import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo, LookupFunction } from 'node:net'
import { Agent, fetch } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkedConnector } from './checked-connector.js'

const fixture = (name: string) => readFileSync(new URL(`../test/fixtures/${name}`, import.meta.url))
const cert = fixture('tls-cert.pem')

/** A `lookup` that resolves every name to 127.0.0.1, in both of its calling forms. */
const loopback: LookupFunction = (_host, options, callback) =>
  options.all
    ? callback(null, [{ address: '127.0.0.1', family: 4 }])
    : callback(null, '127.0.0.1', 4)

describe('checkedConnector', () => {
  const servers: Server[] = []
  const seen: string[] = []
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    seen.push(req.url ?? '')
    res.end(`ok ${req.url}`)
  }
  let httpPort = 0
  let httpsPort = 0
  beforeAll(async () => {
    const http = createHttpServer(answer).listen(0, '127.0.0.1')
    const https = createHttpsServer({ cert, key: fixture('tls-key.pem') }, answer).listen(
      0,
      '127.0.0.1',
    )
    servers.push(http, https)
    await Promise.all([once(http, 'listening'), once(https, 'listening')])
    httpPort = (http.address() as AddressInfo).port
    httpsPort = (https.address() as AddressInfo).port
  })
  afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))))

  /** An agent whose connector lets `allowed` addresses through, resolving every name to loopback. */
  const agentFor = (allowed: (address: string) => boolean) => {
    const checked: string[] = []
    const agent = new Agent({
      connect: checkedConnector(loopback, {
        allowed: (address) => {
          checked.push(address)
          return allowed(address)
        },
        tls: { ca: cert },
      }),
    })
    return { agent, checked }
  }

  it('hands an allowed connection on, over http and over TLS, by name and by address', async () => {
    const { agent, checked } = agentFor(() => true)
    try {
      for (const url of [
        `http://127.0.0.1:${httpPort}/a`,
        `http://localhost:${httpPort}/b`,
        `https://127.0.0.1:${httpsPort}/c`,
        `https://localhost:${httpsPort}/d`,
      ]) {
        const response = await fetch(url, { dispatcher: agent })
        expect(await response.text()).toBe(`ok ${new URL(url).pathname}`)
      }
      expect(checked).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1'])
    } finally {
      await agent.close()
    }
  })

  it('closes a refused connection with the address it reached, the request unsent', async () => {
    const { agent } = agentFor(() => false)
    const before = seen.length
    try {
      for (const url of [`http://localhost:${httpPort}/x`, `https://127.0.0.1:${httpsPort}/y`]) {
        const error = await fetch(url, { dispatcher: agent }).then(
          () => undefined,
          (e: Error & { cause?: Error }) => e,
        )
        expect(error?.cause?.message).toMatch(/connected to a non-public address \(127\.0\.0\.1\)/)
      }
      expect(seen.length).toBe(before)
    } finally {
      await agent.close()
    }
  })

  it('fails a connection that is refused with the system error', async () => {
    const { agent } = agentFor(() => true)
    const closed = createHttpServer().listen(0, '127.0.0.1')
    await once(closed, 'listening')
    const port = (closed.address() as AddressInfo).port
    await new Promise((r) => closed.close(r))
    try {
      const error = await fetch(`http://127.0.0.1:${port}/`, { dispatcher: agent }).then(
        () => undefined,
        (e: Error & { cause?: { code?: string } }) => e,
      )
      expect(error?.cause?.code).toBe('ECONNREFUSED')
    } finally {
      await agent.close()
    }
  })
})
