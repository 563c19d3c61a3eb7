import { spawn } from 'node:child_process'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { DataDirLockedError, lockDataDir } from './data-dir-lock.js'
import { openPgliteDatabase } from './open-pglite-database.js'
import { emptyCluster, testDatabases } from './testing.js'

const temps: string[] = []
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })))
})
async function parent(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kcore-lock-'))
  temps.push(dir)
  return dir
}

const lockModule = fileURLToPath(new URL('./data-dir-lock.ts', import.meta.url))

/** Another process holding the lock of `dir` until killed; resolves once it holds it. */
async function holder(dir: string) {
  const script = `const { lockDataDir } = await import(${JSON.stringify(lockModule)});
    await lockDataDir(${JSON.stringify(dir)}); console.log('held'); setInterval(() => {}, 1000)`
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => line === 'held' && resolve())
    void exited.then(() => reject(new Error('holder exited before taking the lock')))
  })
  const kill9 = () => {
    child.kill('SIGKILL')
    return exited
  }
  return { pid: child.pid!, kill9 }
}

describe('data directory lock', () => {
  it('refuses a second opener in the same process with one line, and frees the directory on close', async () => {
    const dir = await emptyCluster(join(await parent(), 'data'))
    const first = await openPgliteDatabase(dir)
    const files = await readdir(dir)
    const second = openPgliteDatabase(dir)
    await expect(second).rejects.toThrow(DataDirLockedError)
    await expect(second).rejects.toThrow(
      `data directory ${dir} is in use by process ${process.pid}; stop it first, or run every process on PostgreSQL (DATABASE_URL)`,
    )
    expect(await readdir(dir)).toEqual(files)
    expect(await first.ping()).toBe(true)
    await first.close()
    const again = await openPgliteDatabase(dir)
    expect(await again.ping()).toBe(true)
    await again.close()
  })

  it('refuses while another live process holds it, naming its PID, and takes over after kill -9', async () => {
    const base = await parent()
    const dir = join(base, 'data')
    const other = await holder(dir)
    const error = await lockDataDir(dir).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DataDirLockedError)
    expect(error).toMatchObject({ dataDir: dir, holderPid: other.pid, exitCode: 2 })
    expect(String((error as Error).message)).not.toContain('\n')
    // nothing was created by the refused opener (the holder never made the directory either)
    expect((await readdir(base)).sort()).toEqual(['data.lock', 'data.lock.pid'])

    await other.kill9()
    const release = await lockDataDir(dir)
    await expect(lockDataDir(dir)).rejects.toThrow(DataDirLockedError)
    await release()
    await release() // idempotent
    // released by a live process: another process takes it at once
    const next = await holder(dir)
    await expect(lockDataDir(dir)).rejects.toThrow(`in use by process ${next.pid};`)
    await next.kill9()
    const last = await lockDataDir(dir)
    await last()
  })

  it('in memory there is no directory and no lock', async () => {
    // The test harness's in-memory databases take the path `openPgliteDatabase()` takes
    // (`openSupervised` without a directory) on engines it keeps, not two fresh clusters.
    const memory = testDatabases({})[0]!
    const [a, b] = await Promise.all([memory.open(), memory.open()])
    expect([await a.ping(), await b.ping()]).toEqual([true, true])
    await Promise.all([a.close(), b.close()])
  })
})
