import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const fixture = fileURLToPath(new URL('./no-pglite.fixture.mjs', import.meta.url))
const packageDir = fileURLToPath(new URL('..', import.meta.url))

describe('PGlite is loaded only when used, and only by its worker thread', () => {
  it('imports @kcore/db and opens PostgreSQL without resolving @electric-sql/pglite', async () => {
    // tsx runs the sources (the `source` condition); the fixture's hook refuses PGlite, so any
    // static import of it anywhere under @kcore/db's entry fails the import itself.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--conditions=source', fixture],
      { cwd: packageDir, timeout: 110_000 },
    )
    expect(stdout.trim().split('\n')).toEqual([
      'postgres-without-pglite',
      'pglite-refused',
      // The hook binds the thread that registered it (Node 20): PGlite opens, so this thread
      // never resolved it, though it serves the database.
      'pglite-in-worker-only',
    ])
  }, 120_000)
})
