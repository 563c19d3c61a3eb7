import { execFileSync, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { openPgliteDatabase } from '@kcore/db'
import { emptyCluster, rotatingSample } from '@kcore/db/testing'
import { createKcoreStore } from '@kcore/store'
import { storedShells } from '@kcore/store/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KcoreProcess } from './kcore-process.js'
import { ownsDataDir } from './lock-owner.js'
import { caida, createSnapshotMirror, type SnapshotMirror } from './snapshot-mirror.js'
import { waitUntil } from './wait-until.js'

// Issue 12: one process at a time owns a PGlite data directory. Each pairing of a first process
// that holds the directory (serve, the Node example host, an ingest waiting for its file, a
// backfill waiting for its provider) with a second one (serve, ingest, backfill, migrate, the
// example host): the second stops with one line naming the directory and the first's PID,
// exit 2; the first keeps working and finishes; the data are whole afterwards.

const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url))
const QUIET = { KCORE_LOG_LEVEL: 'warn' }

const temps: string[] = []
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })))
})

/** The Node example host on `dataDir`, as a {@link KcoreProcess}-like child. */
function exampleHost(dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'node-server.ts'], {
    cwd: EXAMPLES,
    env: {
      PATH: process.env.PATH,
      KCORE_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      KCORE_SEED: 'false',
      KCORE_SCHEDULER_ENABLED: 'false',
      KCORE_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  for (const stream of [child.stdout, child.stderr])
    createInterface({ input: stream }).on('line', (line) => lines.push(line))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  return { pid: child.pid!, child, exited, lines, output: () => lines.join('\n') }
}

/** A first process holding the directory, how to see it still works, and how to let it finish. */
interface First {
  pid: number
  stillWorks(): Promise<void>
  finish(): Promise<void>
}

async function health(base: string): Promise<number> {
  return (await fetch(`${base}/api/health`)).status
}

describe('one owner per PGlite data directory', () => {
  let mirror: SnapshotMirror

  beforeAll(async () => {
    mirror = await createSnapshotMirror()
    await mirror.offer(caida('19990201.as-rel.txt.bz2'))
  })
  afterAll(async () => {
    await mirror?.close()
  })

  const firsts: Record<string, (dataDir: string, fifoDir: string) => Promise<First>> = {
    async serve(dataDir) {
      const p = new KcoreProcess(
        ['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--no-seed'],
        { KCORE_SCHEDULER_ENABLED: 'false' },
      )
      const listening = await p.waitForLog((e) => e.msg === 'listening')
      const base = `http://127.0.0.1:${new URL(String(listening.url)).port}`
      return {
        pid: p.pid,
        stillWorks: async () => expect(await health(base)).toBe(200),
        finish: async () =>
          expect(await p.kill('SIGTERM'), p.output()).toEqual({ code: 0, signal: null }),
      }
    },
    async 'node example host'(dataDir) {
      const host = exampleHost(dataDir)
      await ownsDataDir(dataDir, host.pid, host.exited)
      const base = await waitUntil('the host to listen', async () => {
        const line = host.lines.find((l) => l.startsWith('listening on '))
        return line && `http://127.0.0.1:${new URL(line.slice('listening on '.length)).port}`
      })
      await waitUntil('the host to answer', async () => (await health(base).catch(() => 0)) === 200)
      return {
        pid: host.pid,
        stillWorks: async () => expect(await health(base)).toBe(200),
        finish: async () => {
          host.child.kill('SIGTERM')
          expect((await host.exited).signal ?? null, host.output()).toBe(null)
        },
      }
    },
    // The file is a named pipe: the ingest owns the directory and waits until the test writes.
    async ingest(dataDir, fifoDir) {
      const fifo = join(fifoDir, '19990201.as-rel.txt.bz2')
      execFileSync('mkfifo', [fifo])
      const p = new KcoreProcess(['ingest', '--data-dir', dataDir, fifo], QUIET)
      await ownsDataDir(dataDir, p.pid, p.exited)
      return {
        pid: p.pid,
        stillWorks: async () => expect(p.child.exitCode).toBe(null),
        finish: async () => {
          await writeFile(fifo, await readFile(caida('19990201.as-rel.txt.bz2')))
          expect(await p.exited, p.output()).toEqual({ code: 0, signal: null })
          expect(p.output()).toMatch(/ipv4 1999-02-01, \d+ ASes/)
        },
      }
    },
    // The provider holds the listing: the backfill owns the directory and waits.
    async backfill(dataDir) {
      const gate = mirror.holdListings()
      const p = new KcoreProcess(
        ['backfill', '--data-dir', dataDir, '--provider-url', mirror.url, '--ip-version', 'ipv4'],
        QUIET,
      )
      await gate.heldAtOnce(1)
      return {
        pid: p.pid,
        stillWorks: async () => expect(p.child.exitCode).toBe(null),
        finish: async () => {
          gate.release()
          expect(await p.exited, p.output()).toEqual({ code: 0, signal: null })
        },
      }
    },
  }

  const seconds: Record<
    string,
    (dataDir: string) => { exited: Promise<{ code: number | null }>; output(): string }
  > = {
    serve: (dataDir) =>
      new KcoreProcess(
        ['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--no-seed'],
        {
          KCORE_SCHEDULER_ENABLED: 'false',
        },
      ),
    ingest: (dataDir) =>
      new KcoreProcess(['ingest', '--data-dir', dataDir, caida('19980101.as-rel.txt.bz2')], QUIET),
    backfill: (dataDir) =>
      new KcoreProcess(
        ['backfill', '--data-dir', dataDir, '--provider-url', mirror.fileUrl],
        QUIET,
      ),
    migrate: (dataDir) => new KcoreProcess(['migrate', '--data-dir', dataDir], QUIET),
    'node example host': (dataDir) => exampleHost(dataDir),
  }

  // Every second command against one owner each run (all four in `pnpm test:full`).
  it.each(rotatingSample('data directory owners', Object.keys(firsts), 1))(
    'while %s owns the directory, every other command stops at once with exit 2',
    async (firstName) => {
      const base = await mkdtemp(join(tmpdir(), 'kcore-owner-'))
      temps.push(base)
      const dataDir = await emptyCluster(join(base, 'data'))
      // one stored snapshot before the pairing: it must be whole afterwards
      const seed = new KcoreProcess(
        ['ingest', '--data-dir', dataDir, caida('19980101.as-rel.txt.bz2')],
        QUIET,
      )
      expect(await seed.exited, seed.output()).toEqual({ code: 0, signal: null })

      const first = await firsts[firstName]!(dataDir, base)
      for (const [secondName, start] of Object.entries(seconds)) {
        const second = start(dataDir)
        const exit = await second.exited
        const lines = second.output().split('\n').filter(Boolean)
        expect({ secondName, code: exit.code, lines }).toEqual({
          secondName,
          code: 2,
          lines: [
            `kcore: data directory ${dataDir} is in use by process ${first.pid}; stop it first, or run every process on PostgreSQL (DATABASE_URL)`,
          ],
        })
        await first.stillWorks()
      }
      await first.finish()

      // whole data: every stored snapshot has exactly its AS count of shell rows
      const database = await openPgliteDatabase(dataDir)
      try {
        const store = createKcoreStore(database)
        const snapshots = await (await store.reader()).snapshots('ipv4')
        const expected =
          firstName === 'ingest' || firstName === 'backfill'
            ? ['1998-01-01', '1999-02-01']
            : ['1998-01-01']
        expect(snapshots.map((s) => s.date)).toEqual(expected)
        for (const s of snapshots) {
          expect(await storedShells(database, 'ipv4', s.date)).toHaveLength(s.unique_asns)
        }
      } finally {
        await database.close()
      }
    },
    240_000,
  )
})
