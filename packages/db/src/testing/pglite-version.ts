import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/** The installed PGlite's version: a dump or a data directory only fits the PGlite that wrote it. */
export function pgliteVersion(): string {
  const require = createRequire(import.meta.url)
  let dir = dirname(require.resolve('@electric-sql/pglite'))
  for (;;) {
    try {
      const pkg = require(join(dir, 'package.json')) as { name?: string; version?: string }
      if (pkg.name === '@electric-sql/pglite' && pkg.version) return pkg.version
    } catch {}
    const parent = dirname(dir)
    if (parent === dir) return 'unknown'
    dir = parent
  }
}
