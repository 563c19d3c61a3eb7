import { readFile } from 'node:fs/promises'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { caidaDir } from '../test/caida-data.js'
import type { AsGraph } from './as-graph.js'
import { buildAsGraph } from './build-as-graph.js'
import { decodeGraphLinks } from './decode-graph-links.js'
import { encodeGraphLinks } from './encode-graph-links.js'
import { parseAsRel } from './parse-as-rel.js'
import { VarintWriter } from './varint.js'

const RUNS = Number(process.env.FUZZ_RUNS ?? 300)

const asn = fc.oneof(
  fc.integer({ min: 0, max: 40 }),
  fc.constantFrom(0, 127, 128, 16_383, 16_384, 4_294_967_294, 4_294_967_295),
  fc.nat({ max: 4_294_967_295 }),
)

/** Graphs with any ASNs (gaps of every varint length), isolated ASes, metadata, both formats. */
const graphArbitrary = fc
  .record({
    pairs: fc.array(fc.tuple(asn, asn), { maxLength: 120 }),
    format: fc.constantFrom('serial-1' as const, 'serial-2' as const),
    metadata: fc.record({
      inputClique: fc.array(asn, { maxLength: 4 }),
      inferredClique: fc.array(asn, { maxLength: 4 }),
      ixpAses: fc.array(asn, { maxLength: 4 }),
    }),
  })
  .map(({ pairs, format, metadata }) =>
    buildAsGraph(new Uint32Array(pairs.flat()), format, metadata),
  )

/** Typed arrays compared as bytes: one comparison, fast at a real file's size. */
function expectSameGraph(actual: AsGraph, expected: AsGraph): void {
  const same = (a: Uint32Array, b: Uint32Array) =>
    a.length === b.length &&
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(
      Buffer.from(b.buffer, b.byteOffset, b.byteLength),
    )
  expect(same(actual.asns, expected.asns), 'asns').toBe(true)
  expect(same(actual.offsets, expected.offsets), 'offsets').toBe(true)
  expect(same(actual.neighbors, expected.neighbors), 'neighbors').toBe(true)
  expect({ ...actual, asns: 0, offsets: 0, neighbors: 0 }).toEqual({
    ...expected,
    asns: 0,
    offsets: 0,
    neighbors: 0,
  })
}

describe('encodeGraphLinks / decodeGraphLinks', () => {
  it('round-trips any graph exactly', () => {
    fc.assert(
      fc.property(graphArbitrary, (graph) => {
        expect(decodeGraphLinks(encodeGraphLinks(graph))).toEqual(graph)
      }),
      { numRuns: RUNS },
    )
  })

  it('round-trips the empty graph and a lone AS', async () => {
    for (const text of ['', '4294967295|4294967295|0\n', '0|4294967295|-1\n']) {
      const graph = await parseAsRel(text)
      expect(decodeGraphLinks(encodeGraphLinks(graph))).toEqual(graph)
    }
  })

  it.each(['20130201.as-rel.txt.bz2', '20240801.as-rel.txt.bz2'])(
    'round-trips %s, in a fraction of its bzip2 size',
    async (name) => {
      const bytes = await readFile(`${caidaDir}${name}`)
      const graph = await parseAsRel(bytes)
      const encoded = encodeGraphLinks(graph)
      expectSameGraph(decodeGraphLinks(encoded), graph)
      // the relationship column and the text are gone, what is left is gaps of a byte or two
      expect(encoded.length).toBeLessThan(bytes.length)
    },
  )

  it('starts with kcgl and version 1', async () => {
    const encoded = encodeGraphLinks(await parseAsRel('1|2|0\n'))
    expect(Array.from(encoded.subarray(0, 5))).toEqual([0x6b, 0x63, 0x67, 0x6c, 1])
  })

  it('refuses every prefix of an encoding, and bytes after it', async () => {
    const encoded = encodeGraphLinks(
      await parseAsRel('# IXP ASes: 5 6\n1|2|0\n1|3|0\n2|3|-1\n3|300|0\n70000|1|0\n'),
    )
    for (let length = 0; length < encoded.length; length++) {
      expect(() => decodeGraphLinks(encoded.subarray(0, length)), `${length}`).toThrow(RangeError)
    }
    const longer = new Uint8Array(encoded.length + 1)
    longer.set(encoded)
    expect(() => decodeGraphLinks(longer)).toThrow(/bytes after the last link/)
  })

  it('refuses another version, another header, and counts the bytes cannot hold', () => {
    const encoding = (...values: number[]) => {
      const out = new VarintWriter()
      for (const value of values) out.write(value)
      return out.bytes()
    }
    const header = [0x6b, 0x63, 0x67, 0x6c]
    expect(() => decodeGraphLinks(encoding(...header, 2, 0, 0, 0, 0, 0, 0))).toThrow(
      /version 2 \(this engine reads 1\)/,
    )
    expect(() => decodeGraphLinks(new TextEncoder().encode('1|2|0\n'))).toThrow(/no kcgl header/)
    // four billion ASes announced in a few bytes: refused before anything is allocated
    expect(() => decodeGraphLinks(encoding(...header, 1, 4_000_000_000, 0, 0))).toThrow(
      /4000000000 ASes in/,
    )
    expect(() => decodeGraphLinks(encoding(...header, 1, 0, 0, 2, 0, 0, 0))).toThrow(/format 2/)
    // an ASN past 32 bits through its gap, a neighbour past the last node, a missing link
    expect(() =>
      decodeGraphLinks(encoding(...header, 1, 2, 0, 0, 0, 0, 0, 4_294_967_295, 0)),
    ).toThrow(/ASN 4294967296/)
    expect(() => decodeGraphLinks(encoding(...header, 1, 2, 1, 0, 0, 0, 0, 1, 0, 1, 1, 0))).toThrow(
      /node 2 of 2/,
    )
    expect(() => decodeGraphLinks(encoding(...header, 1, 2, 2, 0, 0, 0, 0, 1, 0, 1, 0, 0))).toThrow(
      /1 links, 2 announced/,
    )
    // a varint of six bytes, and one past 32 bits
    const long = new Uint8Array([...header, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01])
    expect(() => decodeGraphLinks(long)).toThrow(/longer than 5 bytes/)
    const wide = new Uint8Array([...header, 1, 0xff, 0xff, 0xff, 0xff, 0x1f])
    expect(() => decodeGraphLinks(wide)).toThrow(/past 32 bits/)
  })

  it('decodes any bytes to a sound graph or refuses them with a RangeError', () => {
    const encoded = fc.sample(graphArbitrary.map(encodeGraphLinks), 50)
    fc.assert(
      fc.property(
        fc.constantFrom(...encoded),
        fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 3 }),
        (bytes, flips) => {
          const corrupt = bytes.slice()
          for (const [at, value] of flips)
            corrupt[5 + (at % Math.max(1, corrupt.length - 5))] = value
          let graph: AsGraph
          try {
            graph = decodeGraphLinks(corrupt)
          } catch (error) {
            expect(error).toBeInstanceOf(RangeError)
            return
          }
          // what decodes is a graph the parser could have built
          const { asns, offsets, neighbors } = graph
          const pairs: number[] = []
          for (let v = 0; v < asns.length; v++) {
            pairs.push(asns[v]!, asns[v]!)
            for (let e = offsets[v]!; e < offsets[v + 1]!; e++)
              pairs.push(asns[v]!, asns[neighbors[e]!]!)
          }
          const rebuilt = buildAsGraph(new Uint32Array(pairs), graph.format, graph.metadata)
          expect(rebuilt).toEqual(graph)
        },
      ),
      { numRuns: RUNS },
    )
  })
})
