import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const fixture = fileURLToPath(new URL('./pglite-exit.fixture.ts', import.meta.url))
const packageDir = fileURLToPath(new URL('..', import.meta.url))
const run = (mode: string) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', '--conditions=source', fixture, mode], {
    cwd: packageDir,
    timeout: 150_000,
  })

// PGlite's engine runs in a worker thread: a statement in flight keeps the process alive (a
// top-level await would otherwise end it unsettled, exit code 13), and nothing of it is left
// after close(), or while it is idle, so the process exits when its own work is done.
describe('the PGlite worker thread and the life of the process', () => {
  it('keeps the process alive while a statement runs, and lets it exit after close()', async () => {
    const { stdout } = await run('close')
    expect(stdout.trim().split('\n')).toEqual(['counted 3000000', 'counted 3000000', 'done'])
  }, 160_000)

  it('lets the process exit while the database is open and idle, as in-thread PGlite did', async () => {
    const { stdout } = await run('idle')
    expect(stdout.trim().split('\n')).toEqual(['counted 3000000', 'counted 3000000', 'done'])
  }, 160_000)
})
