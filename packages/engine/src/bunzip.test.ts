import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { AsRelParseError } from './as-rel-parse-error.js'
import { bunzip } from './bunzip.js'
import { parseAsRel } from './parse-as-rel.js'

// 18 KB of bz2, about 100 KB of text: a corrupt block must be reported as corrupt bzip2 (its
// garbage never reaches the parser: libbzip2 checks the CRC before the text is handed out).
const real = new Uint8Array(
  await readFile(new URL('../../service/data/19980101.as-rel.txt.bz2', import.meta.url)),
)

async function parseError(bytes: Uint8Array): Promise<AsRelParseError> {
  const error = await parseAsRel(bytes).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(AsRelParseError)
  return error as AsRelParseError
}

describe('bunzip', () => {
  it('reports a corrupt block as corrupt bzip2, not as the malformed lines its garbage makes', async () => {
    const positions = Array.from({ length: 40 }, (_, i) => 10 + i * Math.floor(real.length / 41))
    for (const position of positions) {
      const corrupt = real.slice()
      corrupt[position] = corrupt[position]! ^ 0xff
      const error = await parseError(corrupt)
      expect(error.message, `byte ${position} flipped`).toMatch(/^corrupt or truncated bzip2 data/)
    }
  })

  it('hands out only sound blocks and stops at what push threw', async () => {
    const stop = new Error('push refused')
    let pushes = 0
    await expect(
      bunzip(real, {
        push: () => {
          pushes++
          throw stop
        },
        room: () => Number.MAX_SAFE_INTEGER,
        refuse: () => {
          throw new Error('no cap here')
        },
      }),
    ).rejects.toBe(stop)
    expect(pushes).toBe(1) // nothing more is handed out once push has failed
  })
})
