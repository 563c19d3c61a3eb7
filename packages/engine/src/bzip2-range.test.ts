import { execFileSync, spawnSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { costlyRuns, exhaustive } from '../test/costly-runs.js'
import { loadBzip2BlockDecoder } from './bzip2-block-decoder.js'
import { BLOCK_MAGIC, Bzip2Error, findMagic } from './bzip2-framing.js'
import { type Bzip2Range, checkBzip2Ranges, decodeBzip2Range } from './bzip2-range.js'

const decoder = await loadBzip2BlockDecoder()

// Each fast-check run compresses with the bzip2 command: few runs but in test:full.
const RUNS = costlyRuns()

/** bzip2 at block size `level` (1: blocks of 100 kB, so a few hundred kB make several). */
function bzip2(text: Uint8Array, level = 1): Uint8Array {
  return new Uint8Array(execFileSync('bzip2', [`-${level}`, '-c'], { input: text }))
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.length, 0))
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.length
  }
  return out
}

/**
 * Decodes `bytes` in ranges cut at the byte offsets `cuts` (as split workers do), checks that
 * the ranges chain and the streams hold, and returns the text with each range's result.
 */
function decodeSplit(
  bytes: Uint8Array,
  cuts: readonly number[],
  room = Number.MAX_SAFE_INTEGER,
): { text: Uint8Array; ranges: Bzip2Range[] } {
  const bounds = [0, ...cuts, Number.POSITIVE_INFINITY]
  const chunks: Uint8Array[] = []
  const ranges: Bzip2Range[] = []
  let length = 0
  const sink = {
    push: (text: Uint8Array) => {
      chunks.push(text)
      length += text.length
      if (length > room) throw new Error(`a block past the room: ${length} > ${room}`)
    },
    room: () => room - length,
    refuse: (): never => {
      throw new RefusedError()
    },
  }
  for (let i = 0; i + 1 < bounds.length; i++) {
    ranges.push(decodeBzip2Range(bytes, bounds[i]! * 8, bounds[i + 1]! * 8, decoder, sink))
  }
  checkBzip2Ranges(ranges)
  return { text: concat(chunks), ranges }
}

class RefusedError extends Error {}

/** Byte equality without vitest's element-by-element diff (slow on 100s of kB). */
function expectSameBytes(actual: Uint8Array, expected: Uint8Array, what = ''): void {
  const a = Buffer.from(actual.buffer, actual.byteOffset, actual.length)
  const b = Buffer.from(expected.buffer, expected.byteOffset, expected.length)
  if (a.equals(b)) return
  let at = 0
  while (at < a.length && a[at] === b[at]) at++
  expect.fail(`${what}: ${a.length} bytes vs ${b.length} expected, first difference at ${at}`)
}

/** The integers from `from` to `to`, both included. */
function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i)
}

/** Block starts in bits, as one range over the whole file finds them. */
function blockStarts(bytes: Uint8Array): number[] {
  const starts = findMagic(bytes, BLOCK_MAGIC)
  const { ranges } = decodeSplit(bytes, [])
  expect(ranges).toHaveLength(1)
  return starts
}

/** Text of `length` bytes over `alphabet`, with a few runs: compresses, yet needs blocks. */
function textOf(length: number, alphabet: string, seed: number): Uint8Array {
  const out = new Uint8Array(length)
  let state = seed >>> 0
  const next = () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0
    let t = Math.imul(state ^ (state >>> 15), state | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (t ^ (t >>> 14)) >>> 0
  }
  for (let i = 0; i < length; ) {
    const x = next()
    const byte = alphabet.charCodeAt(x % alphabet.length)
    const run = x >>> 22 === 0 ? 4 + ((x >>> 8) % 300) : 1
    for (let k = 0; k < run && i < length; k++) out[i++] = byte
  }
  return out
}

/** A 997-byte random line repeated: a few kB of bzip2 -1 for several 100 kB blocks. */
function repeating(length: number, seed: number): Uint8Array {
  const line = textOf(997, digits, seed)
  const out = new Uint8Array(length)
  for (let i = 0; i < length; i++) out[i] = line[i % 997]!
  return out
}

const real = new Uint8Array(
  await readFile(new URL('../../service/data/19980101.as-rel.txt.bz2', import.meta.url)),
)
const digits = '0123456789|-\n'

describe('bzip2 ranges', () => {
  it('decodes a real file byte for byte like bzcat, in one range and split', () => {
    const expected = new Uint8Array(execFileSync('bzcat', { input: real }))
    expectSameBytes(decodeSplit(real, []).text, expected, 'one range')
    for (let parts = 2; parts <= 6; parts++) {
      const cuts = Array.from({ length: parts - 1 }, (_, i) =>
        Math.floor((real.length * (i + 1)) / parts),
      )
      expectSameBytes(decodeSplit(real, cuts).text, expected, `${parts} parts`)
    }
  })

  it('equals the original text for any cuts, multi-block and multi-stream (bzip2 -1)', () => {
    const stream = fc.record({
      // around the 100 kB block of bzip2 -1, and empty streams
      length: fc.oneof(
        fc.constantFrom(0, 1, 4, 5, 99_981, 99_982, 100_000, 200_000),
        fc.integer({ min: 0, max: 150_000 }),
      ),
      alphabet: fc.constantFrom(digits, 'a', 'ab', '\u0000\u00ff', digits + '#abcXYZ '),
      seed: fc.integer(),
      // streams of different levels: a range inside a stream must take that stream's level
      level: fc.constantFrom(1, 1, 2, 9),
    })
    fc.assert(
      fc.property(
        fc.array(stream, { minLength: 1, maxLength: 3 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 5 }),
        fc.array(fc.integer({ min: -2, max: 8 }), { maxLength: 3 }),
        (streams, fractions, nearBlock) => {
          const texts = streams.map(({ length, alphabet, seed }) => textOf(length, alphabet, seed))
          const bytes = concat(texts.map((text, i) => bzip2(text, streams[i]!.level)))
          const starts = blockStarts(bytes)
          // cuts anywhere, and right around real block starts (where a range begins or ends)
          const cuts = [
            ...fractions.map((f) => Math.floor(f * bytes.length)),
            ...nearBlock.map((d, i) => Math.floor(starts[i % starts.length]! / 8) + d),
          ]
            .filter((cut) => cut > 0 && cut < bytes.length)
            .sort((a, b) => a - b)
          expectSameBytes(decodeSplit(bytes, cuts).text, concat(texts), `cuts ${cuts}`)
        },
      ),
      { numRuns: RUNS },
    )
  })

  // A block's text length is known only once decoded: no block is decoded past the room left
  // (the decompressed size cap); one that would exceed it is refused, one that fits exactly is
  // read. Runs of one byte grow 51-fold in bzip2's first run-length stage, past the first
  // output buffer (the level's block size plus an eighth).
  it('decodes no block past the room left: refused beyond it, read when it fits exactly', () => {
    const texts = [
      textOf(120_000, digits, 21),
      new Uint8Array(3_000_000).fill(97),
      textOf(10, 'b', 1),
    ]
    const bytes = concat(texts.map((text) => bzip2(text)))
    const text = concat(texts)
    expectSameBytes(decodeSplit(bytes, []).text, text, 'no cap')
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constantFrom(0, 1, text.length - 1, text.length, 99_999, 100_000, 120_000),
          fc.integer({ min: 0, max: text.length + 10 }),
        ),
        fc.constantFrom([], [Math.floor(bytes.length / 2)]),
        (room, cuts) => {
          if (room >= text.length) {
            expectSameBytes(decodeSplit(bytes, cuts, room).text, text, `room ${room}`)
          } else {
            expect(() => decodeSplit(bytes, cuts, room), `room ${room}`).toThrow(RefusedError)
          }
        },
      ),
      { numRuns: RUNS },
    )
  })

  it('refuses ranges that assumed another level than the stream they start in', () => {
    const bytes = concat([bzip2(textOf(250_000, digits, 4), 1), bzip2(textOf(50, digits, 5), 2)])
    const { ranges } = decodeSplit(bytes, [Math.floor(bytes.length / 2)])
    expect(ranges[1]!.items[0]?.kind).toBe('block')
    expect(ranges[1]!.level).toBe(1)
    expect(() => checkBzip2Ranges([ranges[0]!, { ...ranges[1]!, level: 2 }])).toThrow(/level/)
  })

  it('starts a range at every cut near every block boundary and still decodes the same', () => {
    const text = concat([textOf(250_000, digits, 7), textOf(150_000, 'xyz', 9)])
    const bytes = concat([bzip2(text.subarray(0, 250_000)), bzip2(text.subarray(250_000))])
    const starts = blockStarts(bytes)
    expect(starts.length).toBeGreaterThanOrEqual(5)
    // every byte from 8 before to 8 after in test:full; otherwise both ends and the magic's
    const around = exhaustive ? range(-8, 8) : [-8, -1, 0, 1, 3, 5, 6, 8]
    for (const start of starts) {
      for (const cut of around.map((d) => Math.floor(start / 8) + d)) {
        if (cut <= 0) continue
        expectSameBytes(decodeSplit(bytes, [cut]).text, text, `cut at byte ${cut}`)
      }
    }
  })

  // The byte values a block uses are stored as a bitmap, 16 bits per used group of 16 values:
  // text made of the values whose group bitmaps read 3141 5926 5359 puts the block magic,
  // written by bzip2 itself, inside every block's header, 121 bits after the real one
  // (48 magic + 32 CRC + 1 + 24 origin + 16 group bits). No byte repeats 4 times: the run
  // lengths bzip2 writes after 4 equal bytes would be byte values too.
  it('skips a false block magic inside compressed data: the CRC decides', () => {
    const values: number[] = []
    ;[0x3141, 0x5926, 0x5359].forEach((bitmap, g) => {
      for (let j = 0; j < 16; j++) if (bitmap & (0x8000 >>> j)) values.push((8 + g) * 16 + j)
    })
    const text = textOf(350_000, String.fromCharCode(...values), 3)
    for (let i = 3; i < text.length; i++) {
      if (text[i] === text[i - 1] && text[i] === text[i - 2] && text[i] === text[i - 3]) {
        text[i] = text[i] === values[0] ? values[1]! : values[0]!
      }
    }
    const bytes = bzip2(text)
    const magics = findMagic(bytes, BLOCK_MAGIC)
    // a range started at a magic's byte begins at the first real block from there
    const starts = new Set(
      magics.map((at) => decodeSplit(bytes, [Math.floor(at / 8)]).ranges[1]!.startBit),
    )
    const fake = magics.filter((at) => !starts.has(at))
    expect(fake.length).toBeGreaterThanOrEqual(4) // one in every block
    for (const at of fake) {
      // cuts just before the false magic make the second range meet it first (every one of
      // them in test:full)
      const before = exhaustive ? range(-12, 0) : [-12, -7, -3, -1, 0]
      for (const cut of before.map((d) => Math.floor(at / 8) + d)) {
        const { text: decoded, ranges } = decodeSplit(bytes, [cut])
        expect(ranges[1]!.startBit).not.toBe(at)
        expectSameBytes(decoded, text, `cut at byte ${cut}`)
      }
    }
  })

  it("checks a range's first block (its CRC) before taking it as the start", () => {
    const bytes = bzip2(textOf(350_000, digits, 11))
    const starts = blockStarts(bytes)
    expect(starts.length).toBeGreaterThanOrEqual(3)
    for (const [i, start] of starts.entries()) {
      if (i === 0) continue
      const end = starts[i + 1] ?? bytes.length * 8 - 80 // the stream end: magic and CRC
      // one bit flipped in the block's coded data: often it still decodes, to other bytes,
      // with the stored CRCs (block and stream) intact; only the block CRC can tell
      for (const offset of [500, 1000, 2000, 4000]) {
        if (start / 8 + offset > end / 8 - 16) continue
        const corrupt = bytes.slice()
        corrupt[Math.floor(start / 8) + offset]! ^= 0x10
        for (let cut = Math.floor(start / 8) - 2; cut <= Math.floor(start / 8); cut++) {
          expect(() => decodeSplit(corrupt, [cut]), `+${offset}, cut at ${cut}`).toThrow(Bzip2Error)
        }
      }
    }
  })

  // A few bits carry nothing (e.g. the code lengths of a Huffman table no selector picks):
  // flipped, bzip2 itself accepts the file. What matters: never wrong data, and a failure
  // exactly where bzip2 -t fails.
  it('fails on a corrupt byte anywhere bzip2 does, and never returns wrong data', async () => {
    // two streams, the first of two blocks: ~2.6 kB, every byte flipped in turn (test:full);
    // otherwise every byte near a stream's or a block's start and end, and every 16th other
    // one from an offset picked each run
    const text = concat([repeating(101_000, 1), repeating(500, 2)])
    const streams = [bzip2(text.subarray(0, 101_000)), bzip2(text.subarray(101_000))]
    const bytes = concat(streams)
    const third = Math.floor(bytes.length / 3)
    const bzip2Accepts = (data: Uint8Array) =>
      spawnSync('bzip2', ['-t'], { input: data }).status === 0
    const edges = [
      0,
      streams[0]!.length,
      bytes.length,
      ...blockStarts(bytes).map((bit) => bit >>> 3),
    ]
    const offset = Math.floor(Math.random() * 8)
    const flipped = (position: number) =>
      exhaustive || position % 8 === offset || edges.some((at) => Math.abs(position - at) <= 24)
    let failed = 0
    let tried = 0
    for (let position = 0; position < bytes.length; position++) {
      if (!flipped(position)) continue
      tried++
      // a long synchronous loop would starve the test runner's messages
      if (position % 64 === 0) await new Promise((resolve) => setImmediate(resolve))
      const corrupt = bytes.slice()
      corrupt[position]! ^= 0xff
      const splits = [[], [Math.floor(bytes.length / 2)]]
      if (position % 7 === 0) splits.push([third, 2 * third, bytes.length - 40])
      const outcomes = splits.map((cuts) => {
        try {
          return Buffer.from(decodeSplit(corrupt, cuts).text)
        } catch (error) {
          expect(error, `byte ${position}, cuts ${cuts}`).toBeInstanceOf(Bzip2Error)
          return 'failed'
        }
      })
      // the same verdict however the file is split
      expect(new Set(outcomes.map((o) => (o === 'failed' ? o : 'read'))).size).toBe(1)
      if (outcomes[0] === 'failed') {
        failed++
        if (position % 50 === 0) expect(bzip2Accepts(corrupt), `byte ${position}`).toBe(false)
      } else {
        expect(bzip2Accepts(corrupt), `byte ${position}`).toBe(true)
        for (const outcome of outcomes) expectSameBytes(outcome as Buffer, text, `byte ${position}`)
      }
    }
    expect(failed, `offset ${offset}`).toBeGreaterThan(tried * 0.9)
  }, 180_000)

  it('fails on data cut at any length, in one range and split', async () => {
    const first = bzip2(textOf(150_000, digits, 5))
    const bytes = concat([first, bzip2(textOf(10, 'a', 6))])
    // every length of the last 100 bytes in test:full, every third otherwise
    const near = exhaustive ? 1 : 3
    for (
      let length = 0;
      length < bytes.length;
      length += length > bytes.length - 100 ? near : 211
    ) {
      if (length === first.length) continue // one whole stream: valid
      await new Promise((resolve) => setImmediate(resolve))
      const cut = bytes.subarray(0, length)
      for (const cuts of [[], [Math.floor(length / 2)]]) {
        const valid = cuts.filter((c) => c > 0 && c < length)
        expect(() => decodeSplit(cut, valid), `length ${length}`).toThrow(Bzip2Error)
      }
    }
  })
})
