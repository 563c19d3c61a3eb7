import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { parseAsRelPart, UNLIMITED } from '../src/as-rel-part.js'
import { bunzip } from '../src/bunzip.js'
import { caidaDir } from './caida-data.js'

// Every real file (../shared/data/caida and the whole serial-1 history, 357 files) decoded
// byte for byte as bzcat decodes it, in one pass and in two parts (`pnpm test:full`).
const history = `${caidaDir}history/serial-1/`
const files = [
  ...readdirSync(caidaDir)
    .filter((name) => name.endsWith('.bz2'))
    .map((name) => caidaDir + name),
  ...(existsSync(history)
    ? readdirSync(history)
        .filter((name) => name.endsWith('.bz2'))
        .map((name) => history + name)
    : []),
]

describe('bzip2: every real file as bzcat reads it', () => {
  it('decodes them all byte for byte, whole and the block list split in two', async () => {
    expect(files.length).toBeGreaterThan(40)
    for (const path of files) {
      const bytes = new Uint8Array(await readFile(path))
      const expected = execFileSync('bzcat', [path], { maxBuffer: 1 << 28 })
      const chunks: Uint8Array[] = []
      await bunzip(bytes, {
        push: (text) => chunks.push(text),
        room: UNLIMITED.room,
        refuse: UNLIMITED.refuse,
      })
      expect(Buffer.concat(chunks).equals(expected), path).toBe(true)
      // two parts chain (their blocks are the whole file's) and hold every line
      const parts = await Promise.all(
        [0, 1].map((part) => parseAsRelPart(bytes, part, 2, UNLIMITED)),
      )
      expect(parts[0]!.range.endBit, path).toBe(parts[1]!.range.startBit)
    }
  }, 1_800_000)
})
