import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AsRelLineReader } from './as-rel-line-reader.js'
import { AsRelParseError } from './as-rel-parse-error.js'
import { MAX_ASN } from './max-asn.js'

/** What reading `text` must give, line by line with a regular expression: the reference. */
function reference(text: string) {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const pairs: number[] = []
  let serial2 = false
  for (const [i, raw] of lines.entries()) {
    const line = raw.replace(/[\r \t]+$/, '').replace(/^[ \t]+/, '')
    if (line === '' || line.startsWith('#')) continue
    const match = /^(\d{1,10})\|(\d{1,10})\|(?:-1|0)(\|[^|]+)?$/.exec(line)
    if (!match || Number(match[1]) > MAX_ASN || Number(match[2]) > MAX_ASN) {
      return { error: i + 1 }
    }
    pairs.push(Number(match[1]), Number(match[2]))
    serial2 ||= match[3] !== undefined
  }
  return { pairs, lineCount: lines.length, serial2 }
}

function read(chunks: Uint8Array[]) {
  const reader = new AsRelLineReader()
  try {
    for (const chunk of chunks) reader.push(chunk)
    reader.end()
  } catch (error) {
    if (error instanceof AsRelParseError) return { error: error.line }
    throw error
  }
  const { lineCount, serial2 } = reader
  return { pairs: [...reader.edges.view()], lineCount, serial2 }
}

const asn = fc.oneof(
  fc.integer({ min: 0, max: 70_000 }).map(String),
  fc.constantFrom('4294967295', '4294967296', '9999999999', '01234567890', '007', ''),
)
const line = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(asn, asn, fc.constantFrom('-1', '0')).map((p) => p.join('|')) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(asn, asn, fc.constantFrom('-1', '0', '-10', '00', '1', '-'))
      .chain((p) =>
        fc
          .constantFrom(
            '',
            '|bgp',
            '|bgp\r',
            '|',
            '|\r',
            '| \t',
            '|a|b',
            '| x',
            '|x y',
            '|x\t',
            '\r',
            ' ',
            '\t\r',
          )
          .map((end) => p.join('|') + end),
      ),
  },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\r', '# a comment', '  1|2|0', 'x|1|0') },
)

describe('AsRelLineReader', () => {
  it('reads any text, cut into chunks anywhere, as its lines one by one', () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 30 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 6 }),
        (lines, lastNewline, cuts) => {
          const text = lines.join('\n') + (lastNewline ? '\n' : '')
          const bytes = new TextEncoder().encode(text)
          const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
          const chunks = [0, ...at].map((from, i) => bytes.subarray(from, at[i] ?? bytes.length))
          expect(read(chunks)).toEqual(reference(text))
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 2000) },
    )
  })
})
