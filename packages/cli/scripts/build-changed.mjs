#!/usr/bin/env node
// Builds only the workspace packages whose dist/ is older than their inputs (src/, package.json,
// tsconfig.json), so `pnpm start` pays for a build only after a change. A package's dist is
// bundled from its own sources alone (workspace dependencies stay external), so a change never
// forces its dependents to rebuild. Modification times are the whole check: cheap and
// conservative (a checkout that touches a file rebuilds its package).
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

// Lives with the CLI it serves (`pnpm start` runs the built `kcore`); works on the whole workspace.
const root = new URL('../../..', import.meta.url).pathname
const packagesDir = join(root, 'packages')

/** Newest modification time under `path` (a file or a directory), 0 when absent. */
function newest(path) {
  let stat
  try {
    stat = statSync(path)
  } catch {
    return 0
  }
  if (!stat.isDirectory()) return stat.mtimeMs
  let max = 0
  for (const entry of readdirSync(path)) max = Math.max(max, newest(join(path, entry)))
  return max
}

const stale = []
for (const dir of readdirSync(packagesDir)) {
  const pkgDir = join(packagesDir, dir)
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'))
  if (!pkg.scripts?.build) continue
  const built = newest(join(pkgDir, 'dist/index.js'))
  const inputs = Math.max(
    ...['src', 'scripts', 'package.json', 'tsconfig.json'].map((f) => newest(join(pkgDir, f))),
  )
  if (built === 0 || inputs > built) stale.push(pkg.name)
}

if (stale.length === 0) {
  console.log('build: every package is up to date')
} else {
  console.log(`build: ${stale.join(', ')}`)
  // --filter keeps pnpm's dependency order among the packages built.
  execFileSync('pnpm', ['-r', ...stale.flatMap((name) => ['--filter', name]), 'build'], {
    cwd: root,
    stdio: 'inherit',
  })
}
