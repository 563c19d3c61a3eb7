import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const tsx = `${root}node_modules/tsx/dist/cli.mjs`

// examples/store-script.ts is documentation researchers copy from: it has to keep running.
describe('examples/store-script.ts', () => {
  it('ingests the sample files into in-memory PGlite and prints trends', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [tsx, '--conditions=source', 'examples/store-script.ts'],
      { cwd: root, timeout: 120_000 },
    )
    expect(stdout).toContain('20220601.as-rel.txt.bz2: 74045 ASes, max shell index 147')
    expect(stdout).toMatch(/AS3356 Lumen: 2010-01-01 52 \(1\.000\), 2015-01-01 76 \(1\.000\)/)
    expect(stdout).toMatch(/AS13335 Cloudflare: 2015-01-01/)
    expect(stdout).toContain('"snapshot_count":3')
  })
})
