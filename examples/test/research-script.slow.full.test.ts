import { execFile } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { decomposeSnapshot, parseSnapshotFileName } from '@kcore/engine'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))
const data = fileURLToPath(new URL('../../packages/service/data/', import.meta.url))
const tsx = `${root}node_modules/tsx/dist/cli.mjs`

// examples/research-script.ts is documentation researchers copy from: it has to keep running,
// and its figures must be the engine's.
describe('examples/research-script.ts', () => {
  it('prints k_max and the innermost core of every sample snapshot, and ten risers', async () => {
    const env = { ...process.env, DATABASE_URL: '', KCORE_DATA_DIR: '' }
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [tsx, '--conditions=source', 'examples/research-script.ts'],
      { cwd: root, timeout: 180_000, env },
    )
    for (const file of (await readdir(data)).filter((f) => f.endsWith('.bz2'))) {
      const info = parseSnapshotFileName(file)!
      const { decomposition: d } = await decomposeSnapshot(
        new Uint8Array(await readFile(data + file)),
      )
      const innermost = d.shells.filter((s) => s === d.maxShell).length
      const line = `${info.date}  k_max ${d.maxShell}  innermost core ${innermost} of ${d.asns.length} ASes`
      const section = stdout.split(/^ipv6:/m)[info.ipVersion === 'ipv4' ? 0 : 1]!
      expect(section).toContain(line)
    }
    expect(stdout).toContain('ten biggest risers, ipv4 2020-01-01 -> 2022-06-01')
    expect(stdout.match(/^ {2}AS\d+ {2}\d+ -> \d+ {2}\+\d\.\d{3}$/gm)).toHaveLength(10)
  }, 200_000)
})
