import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { type AddressInfo, createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { emptyCluster } from '@kcore/db/testing'
import { loadConfig, openStores } from '@kcore/service'
import { afterAll, describe, expect, it } from 'vitest'
import { type CliIo, main } from './program.js'

const caida = fileURLToPath(new URL('../../../../shared/data/caida/', import.meta.url))
const temps: string[] = []
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })))
})

async function run(args: string[], env: Record<string, string> = {}, isTTY = false) {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    env: { KCORE_LOG_LEVEL: 'silent', ...env },
    stdout: { isTTY, write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  }
  const code = await main(args, io)
  return { code, stdout, stderr }
}

const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kcore-cli-'))
  temps.push(dir)
  return dir
}
/** A data directory holding an empty cluster (`emptyCluster`: no initdb per test). */
const clusterDir = async () => emptyCluster(join(await tempDir(), 'db'))

describe('kcore command line', () => {
  it.each([
    [['--help']],
    [['serve', '--help']],
    [['migrate', '--help']],
    [['ingest', '--help']],
    [['backfill', '--help']],
    [['names', 'import', '--help']],
  ])('%j prints help and exits 0', async (args) => {
    const { code, stdout } = await run(args)
    expect(code).toBe(0)
    expect(stdout).toMatch(/Usage: kcore/)
  })

  it.each([
    [['frobnicate']],
    [['ingest']],
    [['serve', '--bogus']],
    [['backfill', '--from', '2024-13']],
    [['backfill', '--ip-version', 'ipv5']],
    [['ingest', 'a.bz2', 'b.bz2', '--date', '2024-01-01']],
  ])('%j is a usage error (exit 2)', async (args) => {
    const { code, stderr } = await run(args)
    expect(code).toBe(2)
    expect(stderr).not.toBe('')
  })

  it('stops with one line naming an invalid setting (exit 2)', async () => {
    const { code, stderr } = await run(['migrate'], {
      KCORE_DATA_DIR: '',
      DATABASE_URL: 'mysql://nope',
    })
    expect(code).toBe(2)
    expect(stderr.trim()).toMatch(/^kcore: Invalid configuration: DATABASE_URL/)
    expect(stderr.trim().split('\n')).toHaveLength(1)
  })

  it('stops serve with one line when the database host accepts and never answers (exit 1)', async () => {
    const sockets: Socket[] = []
    const silent = createServer((socket) => void sockets.push(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as AddressInfo
    try {
      const { code, stderr } = await run(['serve', '--port', '0', '--host', '127.0.0.1'], {
        DATABASE_URL: `postgres://kcore:secret@127.0.0.1:${port}/kcore`,
        KCORE_DB_CONNECT_TIMEOUT_MS: '500',
      })
      expect(code).toBe(1)
      expect(stderr).toBe(
        `kcore: cannot connect to the database at 127.0.0.1:${port}/kcore: no answer within 500 ms\n`,
      )
      expect(sockets.length).toBeGreaterThan(0)
    } finally {
      for (const s of sockets) s.destroy()
      await new Promise((r) => silent.close(r))
    }
  })

  it('stops serve at start on an invalid cron expression (exit 2, one clear line)', async () => {
    const dataDir = await clusterDir()
    const { code, stderr } = await run([
      'serve',
      '--data-dir',
      dataDir,
      '--no-seed',
      '--schedule',
      '61 * * * *',
    ])
    expect(code).toBe(2)
    expect(stderr).toMatch(/^kcore: .*61 \* \* \* \*/)
  })

  it('migrates, ingests local files and reports failures with exit 1', async () => {
    const dataDir = await clusterDir()
    expect((await run(['migrate', '--data-dir', dataDir])).code).toBe(0)
    const ok = await run(['ingest', '--data-dir', dataDir, join(caida, '19980101.as-rel.txt.bz2')])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toMatch(/ipv4 1998-01-01, 3233 ASes, max shell \d+/)
    const missing = await run([
      'ingest',
      '--data-dir',
      dataDir,
      join(dataDir, '20240101.as-rel.txt.bz2'), // well named, but missing: a failure, not usage
    ])
    expect(missing.code).toBe(1)
  })

  it('imports an AS registry whole, and refuses an older, a broken or a missing file', async () => {
    const dataDir = await clusterDir()
    const fixtures = fileURLToPath(
      new URL('../../kcore-store/test/fixtures/as-registry/', import.meta.url),
    )
    const csv = [join(fixtures, 'asn-ipv4.csv'), join(fixtures, 'asn-ipv6.csv')]
    const names = (...args: string[]) => run(['names', 'import', '--data-dir', dataDir, ...args])
    const ok = await names(...csv, '--date', '2026-06-01')
    expect(ok.stderr).toBe('')
    expect(ok.code).toBe(0)
    expect(ok.stdout).toMatch(
      /^AS registry of 2026-06-01: \d+ ASNs \(asn-ipv4\.csv, asn-ipv6\.csv\)\n$/,
    )

    const broken = join(await tempDir(), 'asn-ipv4.csv')
    await writeFile(
      broken,
      '1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."\n1.0.4.0,1.0.7.255,not-an-asn,X\n',
    )
    const refused = [
      [await names(...csv, '--date', '2026-05-31'), 1, /older than the stored one of 2026-06-01/],
      [await names(broken, '--date', '2026-07-01'), 1, /asn-ipv4\.csv/],
      [await names(join(dataDir, 'nothing.csv')), 1, /no such file/],
      [await names(...csv, '--date', '2026-02-30'), 2, /--date must be a real date/],
    ] as const
    for (const [answer, code, message] of refused) {
      expect(answer.code).toBe(code)
      expect(answer.stderr).toMatch(message)
    }
    // Nothing refused replaced the registry.
    const { database, kcore } = await openStores(loadConfig({ KCORE_DATA_DIR: dataDir }))
    try {
      const reader = await kcore.reader()
      expect((await reader.asRegistry())?.date).toBe('2026-06-01')
      expect((await reader.searchAses('cloudflare'))[0]).toMatchObject({ asn: 13335 })
    } finally {
      await database.close()
    }
  })

  it('refuses an empty or implausibly small file (exit 1), the latter stored with --allow-implausible', async () => {
    const dataDir = await clusterDir()
    const files = await tempDir()
    const big = join(caida, '20050101.as-rel.txt.bz2')
    expect((await run(['ingest', '--data-dir', dataDir, big])).code).toBe(0)
    const empty = join(files, '20050201.as-rel.txt')
    await writeFile(empty, '# comments only\n')
    const small = join(files, '20050301.as-rel.txt.bz2')
    await copyFile(join(caida, '19980101.as-rel.txt.bz2'), small)

    for (const flags of [[], ['--allow-implausible']]) {
      const refused = await run(['ingest', '--data-dir', dataDir, ...flags, empty])
      expect(refused.code).toBe(1)
      expect(refused.stderr).toMatch(/20050201\.as-rel\.txt holds no data line/)
    }
    const tooSmall = await run(['ingest', '--data-dir', dataDir, small])
    expect(tooSmall.code).toBe(1)
    expect(tooSmall.stderr).toMatch(
      /20050301\.as-rel\.txt\.bz2 has 3233 ASes, under 25% of its stored neighbours' \(2005-01-01: 18962\)/,
    )
    const forced = await run(['ingest', '--data-dir', dataDir, '--allow-implausible', small])
    expect(forced.code).toBe(0)
    expect(forced.stdout).toMatch(/ipv4 2005-03-01, 3233 ASes/)
  })

  it('backfills from a file:// provider with plain progress lines', async () => {
    const dataDir = await clusterDir()
    const mirror = await tempDir()
    await mkdir(join(mirror, 'serial-1'))
    for (const name of ['19980101.as-rel.txt.bz2', '19990201.as-rel.txt.bz2']) {
      await copyFile(join(caida, name), join(mirror, 'serial-1', name))
    }
    const provider = `file://${mirror}/`
    const first = await run([
      'backfill',
      '--data-dir',
      dataDir,
      '--provider-url',
      provider,
      '--ip-version',
      'ipv4',
    ])
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(/ipv4 1998-01-01 1\/2 ok/)
    expect(first.stdout).toMatch(/ipv4 1999-02-01 2\/2 ok/)
    expect(first.stdout).toMatch(/ipv4: 2 added, latest 1999-02-01/)
    const second = await run([
      'backfill',
      '--data-dir',
      dataDir,
      '--provider-url',
      provider,
      '--from',
      '1999-01',
    ])
    expect(second.code).toBe(0)
    expect(second.stdout).toMatch(/ipv4: 0 added/)
  })
})
