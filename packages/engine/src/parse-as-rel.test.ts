import { readFile } from 'node:fs/promises'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import type { AsGraph } from './as-graph.js'
import { AsRelParseError } from './as-rel-parse-error.js'
import { parseAsRel } from './parse-as-rel.js'

const fixture = (name: string) => readFile(new URL(`../test/fixtures/${name}`, import.meta.url))
const encode = (text: string) => new TextEncoder().encode(text)

/** The graph's links as sorted "a-b" ASN pairs. */
function links(graph: AsGraph): string[] {
  const out: string[] = []
  for (let v = 0; v < graph.asns.length; v++) {
    for (let e = graph.offsets[v]!; e < graph.offsets[v + 1]!; e++) {
      const u = graph.neighbors[e]!
      if (u > v) out.push(`${graph.asns[v]}-${graph.asns[u]}`)
    }
  }
  return out.sort()
}

/** A web stream handing out `bytes` cut at the given offsets. */
function streamOf(bytes: Uint8Array, cuts: number[]): ReadableStream<Uint8Array> {
  const points = [
    0,
    ...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b),
    bytes.length,
  ]
  let i = 0
  return new ReadableStream({
    pull(controller) {
      if (i + 1 >= points.length) return controller.close()
      controller.enqueue(bytes.slice(points[i], points[i + 1]))
      i++
    },
  })
}

async function parseError(input: Parameters<typeof parseAsRel>[0]): Promise<AsRelParseError> {
  const error = await parseAsRel(input).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(AsRelParseError)
  return error as AsRelParseError
}

describe('parseAsRel', () => {
  it('reads serial-1 lines, merges duplicate and reversed pairs, drops self-loops', async () => {
    const graph = await parseAsRel('3|1|-1\n1|3|0\n1|2|0\n2|1|-1\n5|5|0\n10|2|-1\n')
    expect(Array.from(graph.asns)).toEqual([1, 2, 3, 5, 10])
    expect(links(graph)).toEqual(['1-2', '1-3', '2-10'])
    expect(graph.linkCount).toBe(3)
    expect(graph.format).toBe('serial-1')
    // AS 5 appears only in a self-loop: kept, without links
    expect(graph.offsets[4]! - graph.offsets[3]!).toBe(0)
    expect(Array.from(graph.offsets)).toEqual([0, 2, 4, 5, 5, 6])
    expect(Array.from(graph.neighbors)).toEqual([1, 2, 0, 4, 0, 1])
  })

  it('keeps the clique and IXP comments as metadata and ignores every other comment', async () => {
    const text = [
      '# source:topology|BGP|20130201|ripe|rrc00',
      '# input clique: 174 209 286',
      '# inferred clique: 174 209',
      '# IXP ASes: 1200 4635',
      '# c1: 1 2 3',
      '1|2|0',
      '   # indented comment 7|8|9 not data',
      '# inferred clique later in the file is still metadata? no: only this prefix counts',
      '2|3|-1',
    ].join('\n')
    const graph = await parseAsRel(text)
    expect(graph.metadata).toEqual({
      inputClique: [174, 209, 286],
      inferredClique: [174, 209],
      ixpAses: [1200, 4635],
    })
    expect(links(graph)).toEqual(['1-2', '2-3'])
  })

  it('reads the metadata of a real file header', async () => {
    const graph = await parseAsRel(await fixture('20140601.as-rel.txt.bz2'))
    expect(graph.metadata.inferredClique).toEqual([
      174, 209, 701, 1239, 1299, 2828, 2914, 3257, 3320, 3356, 3549, 5511, 6453, 6762, 7018, 12956,
    ])
    expect(graph.metadata.ixpAses).toHaveLength(25)
    expect(graph.metadata.inputClique).toEqual([])
    expect(graph.asns.length).toBe(81)
    expect(graph.linkCount).toBe(71)
  })

  it('reads serial-2 (4th column = source) with CRLF line ends, the same from plain, bz2 and gz', async () => {
    const plain = await parseAsRel(await fixture('crlf.as-rel2.txt'))
    expect(plain.format).toBe('serial-2')
    expect(links(plain)).toEqual(['1-2', '1-3', '2-3'])
    expect(Array.from(plain.asns)).toEqual([1, 2, 3, 4])
    expect(plain.metadata).toEqual({ inputClique: [], inferredClique: [1, 2], ixpAses: [9, 10] })
    for (const name of ['crlf.as-rel2.txt.bz2', 'crlf.as-rel2.txt.gz']) {
      const bytes = await fixture(name)
      expect(await parseAsRel(bytes)).toEqual(plain)
      expect(
        await parseAsRel(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)),
      ).toEqual(plain)
      expect(await parseAsRel(streamOf(bytes, [1, 2, 3, 50]))).toEqual(plain)
    }
  })

  it('is the same with or without a trailing newline, and ignores blank lines', async () => {
    const expected = await parseAsRel('1|2|0\n2|3|-1\n')
    expect(await parseAsRel('1|2|0\n2|3|-1')).toEqual(expected)
    expect(await parseAsRel('\n\n1|2|0\n   \n\t\n2|3|-1\r\n\r\n')).toEqual(expected)
  })

  it('gives an empty graph for empty input, plain or compressed', async () => {
    for (const input of [
      '',
      new Uint8Array(0),
      gzipSync(''),
      streamOf(new Uint8Array(0), []),
      '# only a comment\n',
    ]) {
      const graph = await parseAsRel(input)
      expect(graph.asns.length).toBe(0)
      expect(Array.from(graph.offsets)).toEqual([0])
      expect(graph.linkCount).toBe(0)
    }
  })

  it('names the 1-based line of a malformed data line', async () => {
    const cases: [string, number][] = [
      ['1|2|0\n1|2\n', 2],
      ['# c\n\n1|2|0\r\n1|x|0\r\n', 4],
      ['1|2|0\n1|2|1\n', 2],
      ['1|2|-2\n', 1],
      ['1|2|0|\n', 1],
      ['1|2|0|bgp|extra\n', 1],
      ['1||0\n', 1],
      ['a|2|0\n', 1],
      ['1|2|0\n2|3|0\n4294967296|1|0\n', 3],
      ['1 2 0\n', 1],
      ['1|2|0\n2|3|0\n3|4|0 x', 3],
    ]
    for (const [text, line] of cases) {
      const error = await parseError(text)
      expect(error.line, text).toBe(line)
      expect(error.message).toContain(`line ${line}`)
    }
    // the largest ASN is fine
    expect(Array.from((await parseAsRel('4294967295|1|0')).asns)).toEqual([1, 4294967295])
  })

  it('gives the line number from compressed input too', async () => {
    const text = '1|2|0\n'.repeat(5000) + 'oops\n'
    expect((await parseError(gzipSync(text))).line).toBe(5001)
  })

  it('reports corrupt and truncated bz2 as AsRelParseError', async () => {
    const bytes = await fixture('20140601.as-rel.txt.bz2')
    const corrupt = bytes.slice()
    corrupt[400] = corrupt[400]! ^ 0x55
    await parseError(corrupt)
    await parseError(bytes.subarray(0, bytes.length - 5))
    await parseError(streamOf(bytes.subarray(0, 300), [10, 100]))
    const headerOnly = await parseError(bytes.subarray(0, 4))
    expect(headerOnly.message).toMatch(/bzip2/)
    expect(headerOnly.line).toBe(1)
  })

  it('rejects the bz2 fixture cut at every possible length', async () => {
    const bytes = await fixture('20140601.as-rel.txt.bz2')
    for (let cut = 1; cut < bytes.length; cut++) {
      await parseError(bytes.subarray(0, cut))
    }
  })

  it('reads multi-stream bz2 (concatenated streams) as one text', async () => {
    const a = await fixture('20140601.as-rel.txt.bz2')
    const b = await fixture('crlf.as-rel2.txt.bz2')
    const both = new Uint8Array(a.length + b.length)
    both.set(a)
    both.set(b, a.length)
    const graph = await parseAsRel(both)
    const union = new Set([...links(await parseAsRel(a)), ...links(await parseAsRel(b))])
    expect(links(graph)).toEqual([...union].sort())
    expect(graph.linkCount).toBe(union.size)
    expect(graph.format).toBe('serial-2')
  })

  it('reports corrupt and truncated gz as AsRelParseError', async () => {
    const gz = gzipSync('1|2|0\n'.repeat(10_000))
    const corrupt = gz.slice()
    corrupt[gz.length - 6] = corrupt[gz.length - 6]! ^ 0xff
    await parseError(corrupt)
    await parseError(gz.subarray(0, gz.length >> 1))
    const truncated = await parseError(streamOf(gz.subarray(0, gz.length - 3), [2, 7]))
    // the line reached when the data broke: past the first, at most one past the last
    expect(truncated.line).toBeGreaterThan(1)
    expect(truncated.line).toBeLessThanOrEqual(10_001)
  })

  it('reads a stream cut at awkward places: inside a line, a CRLF and a multi-byte character', async () => {
    const text =
      '# IXP ASes: 7 8\r\n# café ☕ comment 日本\r\n1|2|0\r\n2|3|-1|bgp\r\n30|1|0|mlp\r\n'
    const bytes = encode(text)
    const expected = await parseAsRel(text)
    expect(expected.metadata.ixpAses).toEqual([7, 8])
    const crlf = text.indexOf('\r\n', 20) + 1
    const multibyte = bytes.indexOf(0xe2) + 1 // inside "☕"
    for (const cuts of [
      [crlf],
      [multibyte, multibyte + 1],
      [5, 21, 40, 41, 42],
      Array.from(bytes, (_, i) => i),
    ]) {
      expect(await parseAsRel(streamOf(bytes, cuts))).toEqual(expected)
    }
    const gz = gzipSync(bytes)
    expect(await parseAsRel(streamOf(gz, [1, 2, 3, 11]))).toEqual(expected)
  })

  it('passes an error of the source stream through unchanged', async () => {
    const failure = new Error('network gone')
    for (const head of [encode('1|2|0\n'), gzipSync('1|2|0\n'.repeat(100))]) {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(head)
        },
        pull(controller) {
          controller.error(failure)
        },
      })
      await expect(parseAsRel(stream)).rejects.toBe(failure)
    }
  })

  it('honours an abort signal', async () => {
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    await expect(parseAsRel('1|2|0\n', { signal: controller.signal })).rejects.toThrow('stop')
    const later = new AbortController()
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(encode('1|2|0\n'))
      },
      pull(c) {
        later.abort(new Error('stopped while reading'))
        c.enqueue(encode('2|3|0\n'))
      },
    })
    await expect(parseAsRel(stream, { signal: later.signal })).rejects.toThrow(
      'stopped while reading',
    )
  })
})
