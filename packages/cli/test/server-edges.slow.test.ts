import { mkdtemp, rm } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { embeddedServeArgs, KcoreProcess } from './kcore-process.js'

/** Sends raw bytes and reads until the server closes the connection. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (c) => chunks.push(c))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')))
    socket.end(bytes)
  })
}

/** Status, lower-cased headers and JSON body of a raw HTTP/1.1 answer. */
function parse(answer: string) {
  const [head = '', body = ''] = answer.split('\r\n\r\n')
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers = new Map(
    lines.map((l) => [
      l.slice(0, l.indexOf(':')).toLowerCase(),
      l.slice(l.indexOf(':') + 1).trim(),
    ]),
  )
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body || 'null') }
}

async function start(args: string[]) {
  const dir = await mkdtemp(join(tmpdir(), 'kcore-edges-'))
  const child = new KcoreProcess([...embeddedServeArgs(dir), ...args])
  const listening = await child.waitForLog((entry) => entry.msg === 'listening')
  const port = Number(new URL(String(listening.url)).port)
  return {
    port,
    async stop() {
      await child.kill('SIGTERM')
      await rm(dir, { recursive: true, force: true })
    },
  }
}

describe('kcore serve at the HTTP layer', () => {
  let plain: Awaited<ReturnType<typeof start>>
  let branded: Awaited<ReturnType<typeof start>>
  beforeAll(async () => {
    plain = await start([])
    branded = await start(['--public-url', 'https://events.example.org/'])
  })
  afterAll(async () => {
    await plain?.stop()
    await branded?.stop()
  })

  it.each([
    [
      'a URL over 16 KB',
      `GET /api/health?x=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: h\r\n\r\n`,
      431,
    ],
    [
      'headers over 16 KB',
      `GET /api/health HTTP/1.1\r\nHost: h\r\nX-Big: ${'b'.repeat(17 * 1024)}\r\n\r\n`,
      431,
    ],
    [
      'a bad Content-Length',
      'POST /api/refresh HTTP/1.1\r\nHost: h\r\nContent-Length: abc\r\n\r\n',
      400,
    ],
    [
      'Content-Length with Transfer-Encoding',
      'POST /api/refresh HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
    ],
    ['an unknown method', 'FOO /api/health HTTP/1.1\r\nHost: h\r\n\r\n', 400],
    ['a NUL in the request line', 'GET /api/he\0alth HTTP/1.1\r\nHost: h\r\n\r\n', 400],
    ['garbage', '\x01\x02\x03\r\n\r\n', 400],
  ])('answers %s with the JSON envelope and Connection: close', async (_name, bytes, status) => {
    const answer = parse(await raw(plain.port, bytes))
    expect(answer.status).toBe(status)
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(answer.headers.get('connection')).toBe('close')
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff')
    expect(answer.body).toMatchObject({
      status,
      error: expect.any(String),
      message: expect.any(String),
    })
  })

  it('builds links from --public-url, else from http://localhost:PORT, never from Host', async () => {
    const ask = (port: number) =>
      raw(port, 'GET /cal/events/v1/ HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n')
    const branded_ = await ask(branded.port)
    expect(branded_).not.toContain('evil.example')
    expect(branded_).toContain('https://events.example.org/cal/events/v1/')
    const plain_ = await ask(plain.port)
    expect(plain_).not.toContain('evil.example')
    expect(plain_).toContain(`http://localhost:${plain.port}/cal/events/v1/`)
  })

  it('refuses an invalid public URL with a one-line error naming the flag', async () => {
    for (const bad of [
      'ftp://x.org',
      'https://x.org/?a=1',
      'https://x.org/#f',
      'x.org',
      'https://x.org/base',
    ]) {
      const child = new KcoreProcess(['serve', '--port', '0', '--public-url', bad])
      const exit = await child.exited
      expect(exit.code, bad).not.toBe(0)
      expect(child.output(), bad).toMatch(/Invalid configuration: --public-url must/)
    }
  })

  it('answers HEAD on the wire with the GET headers, Content-Length included, and no body', async () => {
    const request = (method: string) =>
      raw(
        plain.port,
        `${method} /api/openapi.json HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n`,
      )
    const get = await request('GET')
    const head = await request('HEAD')
    const headers = (answer: string) =>
      answer
        .split('\r\n\r\n')[0]!
        .split('\r\n')
        .filter((l) => !/^date:/i.test(l))
    expect(headers(head)).toEqual(headers(get))
    expect(head.split('\r\n\r\n')[1]).toBe('')
    const length = Number(/content-length: (\d+)/i.exec(head)?.[1])
    expect(length).toBe(Buffer.byteLength(get.split('\r\n\r\n')[1]!))
  })
})
