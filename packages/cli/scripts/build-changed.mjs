#!/usr/bin/env node
// Builds only the workspace packages whose dist/ is older than their inputs (src/, package.json,
// tsconfig.json), so `pnpm start` pays for a build only after a change. A package's dist is
// bundled from its own sources alone (workspace dependencies stay external), so a change never
// forces its dependents to rebuild. Modification times are the whole check: cheap and
// conservative (a checkout that touches a file rebuilds its package).
//
// By default only the JavaScript is built (`tsup --no-dts`, or the package's `build:js` script):
// running the service needs no type declarations. `--types` adds them (one `tsc` over the
// workspace, see `declarations`) and also counts a missing or older `dist/index.d.ts` as stale
// (for publint and the packed consumer check).
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'

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
/** Declarations a package ships: not those of its tests, fixtures or scripts. */
const SHIPPED = /(?<!\.(test|fixture|script))\.d\.ts$/
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
  if (built === 0 || inputs > built) stale.push({ ...pkg, dir: pkgDir })
}

/** `pnpm -r` over some packages; --filter keeps pnpm's dependency order among them. */
function pnpmEach(packages, command) {
  if (packages.length === 0) return
  execFileSync('pnpm', ['-r', ...packages.flatMap((p) => ['--filter', p.name]), ...command], {
    cwd: root,
    stdio: 'inherit',
  })
}

// `--typecheck`: the declarations' program runs even when nothing is stale, so one `tsc` run
// both checks the workspace (tests and benchmarks too) and emits what is stale (`pnpm lint`).
const typecheck = process.argv.includes('--typecheck')
if (stale.length === 0) {
  console.log('build: every package is up to date')
  if (typecheck) declarations([])
} else {
  console.log(`build${types ? '' : ' (JavaScript only)'}: ${stale.map((p) => p.name).join(', ')}`)
  pnpmEach(
    stale.filter((p) => p.scripts['build:js']),
    ['run', 'build:js'],
  )
  pnpmEach(
    stale.filter((p) => !p.scripts['build:js']),
    ['exec', 'tsup', '--no-dts'],
  )
  if (types) declarations(stale)
}

/**
 * The type declarations of `packages`, from one TypeScript program over the whole workspace
 * (the one `pnpm typecheck` checks, so it also fails on any type error): each package's
 * `src/**` becomes its `dist/**.d.ts`, the layout its exports map names. tsup's declaration
 * step checked every package again with the sources of all it depends on, several times the
 * work.
 */
function declarations(packages) {
  const out = mkdtempSync(join(tmpdir(), 'kcore-declarations-'))
  try {
    execFileSync(
      'pnpm',
      [
        'exec',
        'tsc',
        ...['-p', 'tsconfig.json', '--noEmit', 'false', '--emitDeclarationOnly'],
        ...['--declaration', '--sourceMap', 'false', '--rootDir', '.', '--outDir', out],
      ],
      { cwd: root, stdio: 'inherit' },
    )
    for (const pkg of packages) {
      const dir = relative(packagesDir, pkg.dir)
      cpSync(join(out, 'packages', dir, 'src'), join(pkg.dir, 'dist'), {
        recursive: true,
        // Only what the package ships: no declarations of its tests or fixtures.
        filter: (path) => statSync(path).isDirectory() || SHIPPED.test(path),
      })
    }
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}
