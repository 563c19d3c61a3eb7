import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { emptyCluster } from '@kcore/db/testing'
import { decomposeSnapshot } from '@kcore/engine'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CliIo, main } from './program.js'

const FILE = fileURLToPath(
  new URL('../../../../shared/data/caida/19980101.as-rel.txt.bz2', import.meta.url),
)

async function run(args: string[], isTTY = false) {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    env: { KCORE_LOG_LEVEL: 'silent' },
    stdout: { isTTY, write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  }
  return { code: await main(args, io), stdout, stderr }
}

describe('kcore export', () => {
  let dir: string
  let expected: [number, number, number][]

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kcore-export-'))
    await emptyCluster(join(dir, 'db'))
    expect((await run(['ingest', '--data-dir', join(dir, 'db'), FILE])).code).toBe(0)
    const { decomposition: d } = await decomposeSnapshot(new Uint8Array(await readFile(FILE)))
    expected = Array.from(d.asns, (asn, i): [number, number, number] => [
      asn,
      d.shells[i]!,
      d.shells[i]! / d.maxShell,
    ]).sort((a, b) => a[0] - b[0])
  }, 60_000)
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('writes the CSV shell list to standard output, equal to the decomposition', async () => {
    const { code, stdout } = await run(['export', '1998-01-01', '--data-dir', join(dir, 'db')])
    expect(code).toBe(0)
    const [header, ...lines] = stdout.trimEnd().split('\n')
    expect(header).toBe('asn,shell_index,normalized_shell_index')
    expect(lines.map((l) => l.split(',').map(Number))).toEqual(expected)
  })

  it('writes NDJSON to --out with a progress bar on a terminal', async () => {
    const out = join(dir, 'shells.ndjson')
    const args = ['export', '1998-01-01', '--format', 'ndjson', '--out', out]
    const { code, stdout } = await run([...args, '--data-dir', join(dir, 'db')], true)
    expect(code).toBe(0)
    expect(stdout).toContain(`${expected.length}/${expected.length} ASes`)
    expect(stdout).toContain(`${out}: ${expected.length} ASes of the ipv4 snapshot 1998-01-01`)
    const rows = (await readFile(out, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(rows.map((r) => [r.asn, r.shell_index, r.normalized_shell_index])).toEqual(expected)
  })

  it.each([
    [['export', '1998-02-01'], 1, /no ipv4 snapshot is stored for 1998-02-01/],
    [['export', '1998-01-01', '--ip-version', 'ipv6'], 1, /no ipv6 snapshot is stored/],
    [['export', '1998-1-1'], 2, /DATE must be YYYY-MM-DD/],
    [['export', '1998-01-01', '--format', 'xml'], 2, /xml/],
    [['export'], 2, /missing required argument/],
  ])('%j exits %i', async (args, exit, message) => {
    const { code, stderr } = await run([...args, '--data-dir', join(dir, 'db')])
    expect(code).toBe(exit)
    expect(stderr).toMatch(message)
  })
})
