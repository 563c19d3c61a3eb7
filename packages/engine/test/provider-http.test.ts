import { readFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createProvider, ProviderError, parseAsRel, type SnapshotRef } from '../src/index.js'

type Handler = (req: IncomingMessage, res: ServerResponse) => void

const fixture = await readFile(new URL('./fixtures/20140601.as-rel.txt.bz2', import.meta.url))

/** An Apache-style directory index: the link text is truncated, the href is whole. */
function apacheIndex(names: string[]): string {
  const rows = names
    .map((name) => {
      const text = name.length > 23 ? `${name.slice(0, 20)}..&gt;` : name
      return `<tr><td valign="top"><img src="/icons/compressed.gif" alt="[   ]"></td><td><a href="${name}">${text}</a></td><td align="right">2013-02-12 10:00  </td><td align="right">489K</td></tr>`
    })
    .join('\n')
  return `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<html><head><title>Index of /datasets/as-relationships/serial-1</title></head><body>
<h1>Index of /datasets/as-relationships/serial-1</h1><table>
<tr><th><a href="?C=N;O=D">Name</a></th><th><a href="?C=M;O=A">Last modified</a></th></tr>
<tr><td><a href="/datasets/as-relationships/">Parent Directory</a></td></tr>
${rows}
<tr><td><a href="README.txt">README.txt</a></td></tr>
</table></body></html>`
}

const serial1 = [
  '20240101.as-rel.txt.bz2',
  '20130201.as-rel.txt.bz2',
  '20130201.as-rel.txt.bz2.md5',
  '20220601.as-rel.v6-stable.txt.bz2',
  '20220601.as-rel.txt.bz2',
  '19980101.as-rel.txt.bz2',
]
const serial2 = ['20151201.as-rel2.txt.bz2', '20240101.as-rel2.txt.bz2']

/** The normal provider: indexes and the fixture for every snapshot file. */
const normal: Handler = (req, res) => {
  const path = new URL(req.url!, 'http://x').pathname
  if (path === '/caida/serial-1/') return html(res, apacheIndex(serial1))
  if (path === '/caida/serial-2/') return html(res, apacheIndex(serial2))
  if (/^\/caida\/serial-[12]\/\d{8}\.as-rel/.test(path)) {
    res.writeHead(200, { 'content-type': 'application/x-bzip2' })
    return res.end(fixture)
  }
  res.writeHead(404).end('not found')
}

function html(res: ServerResponse, body: string) {
  res.writeHead(200, { 'content-type': 'text/html' })
  res.end(body)
}

let server: Server
let base: string
let handler: Handler = normal
let requests: string[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url!)
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/caida/`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})
beforeEach(() => {
  handler = normal
  requests = []
})

const ref = (): SnapshotRef => ({
  ipVersion: 'ipv4',
  date: '2013-02-01',
  serial: 1,
  fileName: '20130201.as-rel.txt.bz2',
  url: `${base}serial-1/20130201.as-rel.txt.bz2`,
})

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ProviderError)
  return error as ProviderError
}

const fast = { retries: 2, retryDelayMs: 5, timeoutMs: 2_000 }

describe('http provider', () => {
  it('lists IPv4 and IPv6 from the hrefs of the serial-1 index, oldest first', async () => {
    const provider = createProvider({ baseUrl: base })
    const ipv4 = await provider.list('ipv4')
    expect(ipv4.map((r) => r.fileName)).toEqual([
      '19980101.as-rel.txt.bz2',
      '20130201.as-rel.txt.bz2',
      '20220601.as-rel.txt.bz2',
      '20240101.as-rel.txt.bz2',
    ])
    expect(ipv4[1]).toEqual({
      ipVersion: 'ipv4',
      date: '2013-02-01',
      serial: 1,
      fileName: '20130201.as-rel.txt.bz2',
      url: `${base}serial-1/20130201.as-rel.txt.bz2`,
    })
    const ipv6 = await provider.list('ipv6')
    expect(ipv6.map((r) => [r.date, r.fileName])).toEqual([
      ['2022-06-01', '20220601.as-rel.v6-stable.txt.bz2'],
    ])
    expect(requests).toEqual(['/caida/serial-1/', '/caida/serial-1/'])
  })

  it('adds serial-2 when asked, serial-1 winning on the same date', async () => {
    const provider = createProvider({ baseUrl: base.slice(0, -1), serial2: true })
    const ipv4 = await provider.list('ipv4')
    expect(ipv4.map((r) => [r.date, r.serial])).toEqual([
      ['1998-01-01', 1],
      ['2013-02-01', 1],
      ['2015-12-01', 2],
      ['2022-06-01', 1],
      ['2024-01-01', 1],
    ])
    expect(ipv4[2]!.url).toBe(`${base}serial-2/20151201.as-rel2.txt.bz2`)
    requests = []
    expect((await provider.list('ipv6')).map((r) => r.date)).toEqual(['2022-06-01'])
    expect(requests).toEqual(['/caida/serial-1/'])
  })

  it('downloads a snapshot as a stream the parser reads', async () => {
    const provider = createProvider({ baseUrl: base })
    const [first] = await provider.list('ipv4')
    const graph = await parseAsRel(await provider.open(first!))
    expect(graph.asns.length).toBe(81)
    expect(graph.linkCount).toBe(71)
  })

  it("download: the response's Last-Modified with the bytes; null when absent or not a date", async () => {
    const provider = createProvider({ baseUrl: base, ...fast })
    for (const [header, expected] of [
      ['Mon, 03 Jun 2024 10:20:30 GMT', '2024-06-03T10:20:30.000Z'],
      [undefined, null],
      ['yesterday-ish', null],
    ] as const) {
      handler = (_req, res) => {
        res.writeHead(200, header ? { 'last-modified': header } : {})
        res.end(fixture)
      }
      const download = await provider.download!(ref())
      expect(download.lastModified?.toISOString() ?? null).toBe(expected)
      expect((await parseAsRel(download.stream)).asns.length).toBe(81)
    }
  })

  it('retries 500s with back-off and then succeeds', async () => {
    let failures = 2
    handler = (req, res) => {
      if (failures-- > 0) return res.writeHead(503).end('busy')
      normal(req, res)
    }
    const provider = createProvider({ baseUrl: base, ...fast })
    const graph = await parseAsRel(await provider.open(ref()))
    expect(graph.asns.length).toBe(81)
    expect(requests).toHaveLength(3)
  })

  it('gives up on a persistent 500 with a ProviderError naming the URL and status', async () => {
    handler = (_req, res) => res.writeHead(500).end('broken')
    const provider = createProvider({ baseUrl: base, ...fast })
    const error = await failure(provider.list('ipv4'))
    expect(error.status).toBe(500)
    expect(error.url).toBe(`${base}serial-1/`)
    expect(error.message).toContain('HTTP 500')
    expect(requests).toHaveLength(3)
  })

  it('does not retry a 404', async () => {
    const provider = createProvider({ baseUrl: base, ...fast })
    const missing = { ...ref(), url: `${base}serial-1/nothing.bz2` }
    const error = await failure(provider.open(missing))
    expect(error.status).toBe(404)
    expect(error.url).toBe(missing.url)
    expect(error.message).toContain('HTTP 404')
    expect(requests).toHaveLength(1)
  })

  it('times out a response whose headers never come, and one that stalls mid-body', async () => {
    handler = () => {}
    const provider = createProvider({ baseUrl: base, timeoutMs: 150, retries: 1, retryDelayMs: 5 })
    const error = await failure(provider.open(ref()))
    expect(error.message).toMatch(/unreachable.*timed out/)
    expect(error.status).toBeUndefined()
    expect(requests).toHaveLength(2)

    requests = []
    handler = (_req, res) => {
      res.writeHead(200)
      res.write(fixture.subarray(0, 100))
    }
    const stalled = await failure(provider.open(ref()))
    expect(stalled.message).toMatch(/timed out/)
    expect(requests).toHaveLength(2)
  })

  it('lets a slow body run past the timeout as long as data keeps coming', async () => {
    handler = (_req, res) => {
      res.writeHead(200)
      let offset = 0
      const timer = setInterval(() => {
        res.write(fixture.subarray(offset, offset + 50))
        offset += 50
        if (offset >= fixture.length) {
          clearInterval(timer)
          res.end()
        }
      }, 50)
    }
    // 18 pieces, 50 ms apart: about 900 ms in total, never 400 ms without data
    const provider = createProvider({ baseUrl: base, timeoutMs: 400, retries: 0 })
    expect((await parseAsRel(await provider.open(ref()))).asns.length).toBe(81)
    expect(requests).toHaveLength(1)
  })

  it('retries a connection dropped mid-body, and reports it when it keeps dropping', async () => {
    let drops = 1
    handler = (req, res) => {
      if (drops-- > 0) {
        res.writeHead(200, { 'content-length': String(fixture.length) })
        res.write(fixture.subarray(0, 200), () => req.socket.destroy())
        return
      }
      normal(req, res)
    }
    const provider = createProvider({ baseUrl: base, ...fast })
    expect((await parseAsRel(await provider.open(ref()))).asns.length).toBe(81)
    expect(requests).toHaveLength(2)

    requests = []
    drops = Number.POSITIVE_INFINITY
    const error = await failure(provider.open(ref()))
    expect(error.message).toMatch(/unreachable/)
    expect(requests).toHaveLength(3)
  })

  it('says unreachable when nothing listens', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const provider = createProvider({ baseUrl: `http://127.0.0.1:${port}/`, ...fast })
    const error = await failure(provider.list('ipv4'))
    expect(error.message).toMatch(/^provider unreachable: http:\/\/127\.0\.0\.1:\d+\/serial-1\/: /)
    expect(error.message).toContain('after 3 attempts')
  })

  it('honours an abort signal while waiting and while backing off', async () => {
    handler = () => {}
    const provider = createProvider({ baseUrl: base, timeoutMs: 60_000 })
    const controller = new AbortController()
    const pending = provider.open(ref(), { signal: controller.signal })
    setTimeout(() => controller.abort(new Error('user gave up')), 50)
    await expect(pending).rejects.toThrow('user gave up')

    handler = (_req, res) => res.writeHead(502).end()
    const backingOff = new AbortController()
    const slow = createProvider({ baseUrl: base, retries: 5, retryDelayMs: 60_000 })
    const listing = slow.list('ipv4', { signal: backingOff.signal })
    setTimeout(() => backingOff.abort(new Error('stop retrying')), 50)
    await expect(listing).rejects.toThrow('stop retrying')
    expect(requests.filter((r) => r === '/caida/serial-1/')).toHaveLength(1)

    const already = AbortSignal.abort(new Error('before start'))
    await expect(slow.list('ipv4', { signal: already })).rejects.toThrow('before start')
  })

  it('uses the fetch it is given and rejects other URL schemes', async () => {
    const seen: string[] = []
    const provider = createProvider({
      baseUrl: 'https://caida.invalid/as-rel/',
      fetch: async (input) => {
        seen.push(String(input))
        return new Response(apacheIndex(['20240801.as-rel.txt.bz2']))
      },
    })
    expect((await provider.list('ipv4')).map((r) => r.url)).toEqual([
      'https://caida.invalid/as-rel/serial-1/20240801.as-rel.txt.bz2',
    ])
    expect(seen).toEqual(['https://caida.invalid/as-rel/serial-1/'])
    expect(() => createProvider({ baseUrl: 'ftp://caida.invalid/' })).toThrow(TypeError)
  })
})
