import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { emptyCluster, testLevel } from '../src/testing.js'

const fixture = fileURLToPath(new URL('./pglite-exit.fixture.ts', import.meta.url))
const packageDir = fileURLToPath(new URL('..', import.meta.url))
const run = async (folder: string, memory: string) => {
  const dir = await mkdtemp(join(tmpdir(), 'kcore-exit-'))
  await emptyCluster(join(dir, 'data'))
  try {
    return await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--conditions=source', fixture, folder, memory, dir],
      { cwd: packageDir, timeout: 150_000 },
    )
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

// PGlite's engine runs in a worker thread: a statement in flight keeps the process alive (a
// top-level await would otherwise end it unsettled, exit code 13), and nothing of it is left
// after close(), or while it is idle, so the process exits when its own work is done. One child
// covers each engine once (a folder left idle, its lock's refresh timer included; memory closed);
// test:full runs the other pairing too.
const pairings: [folder: string, memory: string][] =
  testLevel() === 'full'
    ? [
        ['idle', 'close'],
        ['close', 'idle'],
      ]
    : [['idle', 'close']]

describe('the PGlite worker thread and the life of the process', () => {
  it.each(pairings)(
    'keeps the process alive while a statement runs, and lets it exit: folder %s, memory %s',
    async (folder, memory) => {
      const { stdout } = await run(folder, memory)
      expect(stdout.trim().split('\n')).toEqual(['counted 300000', 'counted 300000', 'done'])
    },
    160_000,
  )
})
