import { execFileSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { costlyRuns, exhaustive } from '../test/costly-runs.js'
import type { AsGraph } from './as-graph.js'
import { parseAsRelPart, UNLIMITED } from './as-rel-part.js'
import { parseAsRel } from './parse-as-rel.js'
import { stitchAsRelParts } from './stitch-as-rel-parts.js'

// Each fast-check run compresses with the bzip2 command: few runs but in test:full.
const RUNS = costlyRuns()

function bzip2(text: string): Uint8Array {
  return new Uint8Array(execFileSync('bzip2', ['-1', '-c'], { input: text }))
}

async function readInParts(bytes: Uint8Array, parts: number): Promise<AsGraph> {
  return stitchAsRelParts(
    await Promise.all(
      Array.from({ length: parts }, (_, part) => parseAsRelPart(bytes, part, parts, UNLIMITED)),
    ),
  )
}

function expectSameGraph(actual: AsGraph, expected: AsGraph, what: string): void {
  expect(actual.format, what).toBe(expected.format)
  expect(actual.metadata, what).toEqual(expected.metadata)
  expect(actual.linkCount, what).toBe(expected.linkCount)
  for (const key of ['asns', 'offsets', 'neighbors'] as const) {
    expect(
      Buffer.from(actual[key].buffer, 0, actual[key].byteLength).equals(
        Buffer.from(expected[key].buffer, 0, expected[key].byteLength),
      ),
      `${what}: ${key}`,
    ).toBe(true)
  }
}

const line = fc.oneof(
  {
    weight: 20,
    arbitrary: fc
      .tuple(fc.nat(5000), fc.nat(5000), fc.constantFrom('-1', '0'))
      .map(([a, b, r]) => `${a}|${b}|${r}`),
  },
  { weight: 2, arbitrary: fc.tuple(fc.nat(5000), fc.nat(5000)).map(([a, b]) => `${a}|${b}|0|bgp`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('# input clique:', '# inferred clique:', '# IXP ASes:'),
        fc.array(fc.nat(70000), { maxLength: 5 }),
      )
      .map(([prefix, asns]) => `${prefix} ${asns.join(' ')}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('', '# a comment', '  ', '1|2|0\r') },
  // longer than a 100 kB block: a part may hold no newline at all
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 250_000 }).map((n) => `# ${'x'.repeat(n)}`) },
)

describe('stitchAsRelParts', () => {
  it('reads a snapshot split in any number of parts as parseAsRel reads it whole', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1_000, maxLength: 30_000 }),
        fc.boolean(),
        fc.integer({ min: 2, max: 9 }),
        async (lines, trailingNewline, parts) => {
          const text = lines.join('\n') + (trailingNewline ? '\n' : '')
          const bytes = bzip2(text)
          const expected = await parseAsRel(text)
          expectSameGraph(await readInParts(bytes, parts), expected, `${parts} parts`)
        },
      ),
      { numRuns: RUNS },
    )
  })

  it('reads a real file in 2 to 8 parts as in one', async () => {
    const bytes = new Uint8Array(
      await readFile(new URL('../../service/data/20200101.as-rel.txt.bz2', import.meta.url)),
    )
    const expected = await parseAsRel(bytes)
    // every count in test:full; otherwise the smallest, an odd one and the largest
    for (const parts of exhaustive ? [2, 3, 4, 5, 6, 7, 8] : [2, 5, 8]) {
      expectSameGraph(await readInParts(bytes, parts), expected, `${parts} parts`)
    }
  })

  it('refuses parts that do not chain (a block read twice or skipped)', async () => {
    const bytes = bzip2(Array.from({ length: 60_000 }, (_, i) => `${i}|${i + 1}|0`).join('\n'))
    const parts = await Promise.all(
      [0, 1, 2].map((part) => parseAsRelPart(bytes, part, 3, UNLIMITED)),
    )
    expect(parts[1]!.range.items.length).toBeGreaterThan(0)
    expect(() => stitchAsRelParts([parts[0]!, parts[2]!])).toThrow(/do not chain/)
    expect(() => stitchAsRelParts([parts[0]!, parts[1]!, parts[1]!, parts[2]!])).toThrow(
      /do not chain/,
    )
  })
})
