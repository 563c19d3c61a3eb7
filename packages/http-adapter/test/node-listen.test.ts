import { request } from 'node:http'
import { describe, expect, it } from 'vitest'
import { listen } from '../src/node/index.js'

const echo = (req: Request) =>
  Response.json({ method: req.method, path: new URL(req.url).pathname })

/** One raw request over node:http (fetch would refuse the oversized header itself). */
function get(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    request(url, { headers }, (res) => {
      let body = ''
      res.on('data', (chunk) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
      .on('error', reject)
      .end()
  })
}

describe('listen (@kcore/http-adapter/node)', () => {
  it('serves a fetch handler on a picked port and closes with keep-alive sockets open', async () => {
    const server = await listen(echo, { hostname: '127.0.0.1' })
    try {
      expect(server.port).toBeGreaterThan(0)
      const response = await fetch(`${server.url.replace('localhost', '127.0.0.1')}/a/b`)
      expect(await response.json()).toEqual({ method: 'GET', path: '/a/b' })
    } finally {
      // fetch keeps its socket alive: close() must not wait for the client to drop it.
      await server.close()
    }
    expect(server.server.listening).toBe(false)
  })

  it('answers parser errors with the JSON envelope', async () => {
    const server = await listen(echo, { hostname: '127.0.0.1' })
    try {
      const { status, body } = await get(`http://127.0.0.1:${server.port}/`, {
        'x-big': 'x'.repeat(20_000),
      })
      expect(status).toBe(431)
      expect(JSON.parse(body)).toMatchObject({ error: 'request_header_fields_too_large' })
    } finally {
      await server.close()
    }
  })

  it('rejects when the port is taken', async () => {
    const first = await listen(echo, { hostname: '127.0.0.1' })
    try {
      await expect(listen(echo, { hostname: '127.0.0.1', port: first.port })).rejects.toMatchObject(
        {
          code: 'EADDRINUSE',
        },
      )
    } finally {
      await first.close()
    }
  })
})
