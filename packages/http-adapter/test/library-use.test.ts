import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const script = fileURLToPath(new URL('./library-handler.script.ts', import.meta.url))

describe('createHandler used as a library', () => {
  it('starts no timer and fetches nothing: the host process exits as soon as it returns', async () => {
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', script], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    child.stderr.on('data', (chunk) => {
      err += chunk
    })
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    const exited = Date.now()
    expect(err).toBe('')
    expect(code).toBe(0)
    expect(out).toContain('resources added []')
    expect(out).toContain('timers pending 0')
    const returned = Number(/returned (\d+)/.exec(out)?.[1])
    // Exiting takes ~100 ms once the event loop is empty (the PGlite worker's teardown), and
    // over a second on a loaded CI machine (1,242 ms once, with other suites beside it). A
    // handler's interval would hold the process open for good, and any timer of its shows in
    // `timers pending` above; the bound only has to tell "exits" from "is held".
    expect(exited - returned).toBeLessThan(5_000)
  }, 60_000)
})
