import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { emptyCluster } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CliIo, main } from './program.js'

const MALFORMED = fileURLToPath(
  new URL('../../kcore-store/fixtures/malformed-line.as-rel.txt.bz2', import.meta.url),
)

async function run(args: string[]) {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    env: { KCORE_LOG_LEVEL: 'silent' },
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  }
  return { code: await main(args, io), stdout, stderr }
}

describe('kcore commands on files and data that are not there', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kcore-read-only-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('export --data-dir TYPO creates nothing and says there is no database there', async () => {
    const typo = join(dir, 'typo')
    const { code, stderr } = await run(['export', '1998-01-01', '--data-dir', typo])
    expect(code).toBe(2)
    expect(stderr).toMatch(`no kcore database in ${typo}`)
    expect(await readdir(dir)).toEqual([])
  })

  it('ingest of a missing file says "no such file" and creates nothing', async () => {
    const missing = join(dir, '20240101.as-rel.txt.bz2')
    const { code, stderr } = await run(['ingest', '--data-dir', join(dir, 'db'), missing])
    expect(code).toBe(1)
    expect(stderr).toMatch(`${missing}: no such file`)
    expect(await readdir(dir)).toEqual([])
  })

  it('a parse error names the file and the line', async () => {
    const file = join(dir, '20140601.as-rel.txt.bz2')
    await copyFile(MALFORMED, file)
    const dataDir = await emptyCluster(join(dir, 'db'))
    const { code, stderr } = await run(['ingest', '--data-dir', dataDir, file])
    expect(code).toBe(1)
    expect(stderr).toMatch(new RegExp(`^kcore: ${file}: .*line 165`))
  })
})
