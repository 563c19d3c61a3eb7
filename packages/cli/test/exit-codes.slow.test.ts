import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// The committed bin runs the build (dist/, which `pnpm test:all` brings up to date first, as
// for every process suite); one case runs it on the TypeScript sources, as `pnpm exec kcore`
// does before any build. Running every case through tsx tripled this file's time.
const BIN = fileURLToPath(new URL('../bin/kcore.js', import.meta.url))
const OWN_SETTINGS = /^(KCORE_|CAL_|DATABASE_URL$|PORT$|HOST$)/

let work: string
let busy: Server
let busyPort: number
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'kcore-exit-'))
  busy = createServer()
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
  busyPort = (busy.address() as { port: number }).port
})
afterAll(async () => {
  await new Promise((resolve) => busy.close(resolve))
  await rm(work, { recursive: true, force: true })
})

interface Run {
  code: number | null
  stdout: string
  stderr: string
  /** Whether the command created its PGlite data directory (it must not on a usage error). */
  touchedData: boolean
}

let runs = 0
function kcore(args: string[], env: Record<string, string> = {}, source = false): Promise<Run> {
  const dataDir = join(work, `data-${runs++}`)
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !OWN_SETTINGS.test(key)),
  )
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        env: {
          ...inherited,
          ...(source ? { KCORE_RUN_SOURCE: '1' } : {}),
          KCORE_LOG_LEVEL: 'silent',
          KCORE_DATA_DIR: dataDir,
          HOST: '127.0.0.1',
          ...env,
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0
        resolve({ code, stdout, stderr, touchedData: existsSync(dataDir) })
      },
    )
  })
}

/** A usage error: exit 2, exactly one line on stderr matching `line`, no work done. */
async function expectUsage(run: Promise<Run>, line: RegExp) {
  const { code, stderr, stdout, touchedData } = await run
  expect({ code, stdout }).toEqual({ code: 2, stdout: '' })
  expect(stderr.endsWith('\n')).toBe(true)
  expect(stderr.trimEnd().split('\n')).toHaveLength(1)
  expect(stderr).toMatch(line)
  expect(touchedData).toBe(false)
}

// Every case is a process of its own, with its own data directory: they run side by side.
describe.concurrent('kcore exit codes and one-line errors, through a real process', () => {
  it('runs from the committed bin without a build and exits 0 on --help', async () => {
    const { code, stdout } = await kcore(['--help'], {}, true)
    expect(code).toBe(0)
    expect(stdout).toMatch(/Usage: kcore/)
  })

  it('refuses a bad KCORE_SCHEDULE before opening the database (exit 2)', async () => {
    await expectUsage(
      kcore(['serve'], { KCORE_SCHEDULE: '61 * * * *' }),
      /^kcore: Invalid configuration: KCORE_SCHEDULE .*cron.*61 \* \* \* \*/,
    )
  })

  it('refuses a --schedule with the wrong number of fields, naming the flag (exit 2)', async () => {
    await expectUsage(
      kcore(['serve', '--schedule', '@daily']),
      /^kcore: Invalid configuration: --schedule .*five fields/,
    )
  })

  it('refuses KCORE_SEED=maybe listing the allowed values (exit 2)', async () => {
    await expectUsage(
      kcore(['serve'], { KCORE_SEED: 'maybe' }),
      /KCORE_SEED must be one of true, false, 1, 0, yes, no \(got "maybe"\)/,
    )
  })

  it.each(['65536', '-1', '80.5', '0x50', ' 80'])(
    'refuses PORT=%j with the allowed range (exit 2)',
    async (port) => {
      await expectUsage(
        kcore(['serve'], { PORT: port }),
        /PORT must be a whole number from 0 to 65535/,
      )
    },
  )

  it('refuses a port already in use before seeding (exit 2)', async () => {
    await expectUsage(
      kcore(['serve', '--port', String(busyPort)]),
      new RegExp(`port ${busyPort} on 127\\.0\\.0\\.1 is already in use.*PORT or --port`),
    )
  })

  it.each(['2024-13-45', '2024-02-30', '24-01-01', '20240101'])(
    'refuses ingest --date %s (exit 2)',
    async (date) => {
      await expectUsage(
        kcore(['ingest', '20240101.as-rel.txt.bz2', '--date', date]),
        /^kcore: --date must be a real date written YYYY-MM-DD/,
      )
    },
  )

  it('names --ip-version and --date for a file without a CAIDA name (exit 2)', async () => {
    await expectUsage(
      kcore(['ingest', 'README.md']),
      /cannot tell the snapshot of README\.md.*give --ip-version ipv4\|ipv6 and --date YYYY-MM-DD/,
    )
  })

  it('needs only the missing one when a flag gives the other (exit 2)', async () => {
    await expectUsage(
      kcore(['ingest', 'README.md', '--ip-version', 'ipv6']),
      /give --date YYYY-MM-DD$/m,
    )
  })

  it('exits 2 on an unknown command', async () => {
    const { code, stderr } = await kcore(['frobnicate'])
    expect(code).toBe(2)
    expect(stderr).toMatch(/unknown command 'frobnicate'/)
  })

  it('exits 1, in one line, when a well-named file cannot be read', async () => {
    const { code, stderr } = await kcore(['ingest', join(work, '20240101.as-rel.txt.bz2')])
    expect(code).toBe(1)
    expect(stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(stderr).toMatch(/^kcore: .*20240101\.as-rel\.txt\.bz2: no such file$/m)
  })
})
