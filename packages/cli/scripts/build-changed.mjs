#!/usr/bin/env node
// Builds only the workspace packages whose dist/ is older than their inputs (src/, package.json,
// tsconfig.json), so `pnpm start` pays for a build only after a change. A package's dist is
// bundled from its own sources alone (workspace dependencies stay external), so a change never
// forces its dependents to rebuild. Modification times are the whole check: cheap and
// conservative (a checkout that touches a file rebuilds its package).
//
// By default only the JavaScript is built (`tsup --no-dts`, or the package's `build:js` script):
// running the service needs no type declarations, and tsup's declaration step is most of a
// build (seconds per package against a fraction of one). `--types` runs each package's full
// `build` and also counts a missing or older `dist/index.d.ts` as stale (for publint).
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

const types = process.argv.includes('--types')
const stale = []
for (const dir of readdirSync(packagesDir)) {
  const pkgDir = join(packagesDir, dir)
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'))
  if (!pkg.scripts?.build) continue
  const js = newest(join(pkgDir, 'dist/index.js'))
  const built = types ? Math.min(js, newest(join(pkgDir, 'dist/index.d.ts'))) : js
  const inputs = Math.max(
    ...['src', 'scripts', 'package.json', 'tsconfig.json'].map((f) => newest(join(pkgDir, f))),
  )
  if (built === 0 || inputs > built) stale.push(pkg)
}

/** `pnpm -r` over some packages; --filter keeps pnpm's dependency order among them. */
function pnpmEach(packages, command) {
  if (packages.length === 0) return
  execFileSync('pnpm', ['-r', ...packages.flatMap((p) => ['--filter', p.name]), ...command], {
    cwd: root,
    stdio: 'inherit',
  })
}

if (stale.length === 0) {
  console.log('build: every package is up to date')
} else {
  console.log(`build${types ? '' : ' (JavaScript only)'}: ${stale.map((p) => p.name).join(', ')}`)
  if (types) {
    pnpmEach(stale, ['build'])
  } else {
    pnpmEach(
      stale.filter((p) => p.scripts['build:js']),
      ['run', 'build:js'],
    )
    pnpmEach(
      stale.filter((p) => !p.scripts['build:js']),
      ['exec', 'tsup', '--no-dts'],
    )
  }
}
