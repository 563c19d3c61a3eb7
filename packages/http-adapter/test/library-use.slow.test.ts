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
    // A handler's interval or pending timer would hold the process open for good: then this
    // never resolves and the test's timeout fails it.
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    expect(err).toBe('')
    expect(code).toBe(0)
    expect(out).toContain('resources added []')
    expect(out).toContain('timers pending 0')
  }, 60_000)
})
