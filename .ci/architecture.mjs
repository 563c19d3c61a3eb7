#!/usr/bin/env node
// The architecture check of `pnpm lint`: the rules a reviewer would otherwise count by hand.
//   1. No import cycle among source files, type-only imports included (a cycle of types is still
//      two modules that cannot be understood apart), across packages too.
//   2. No `Kysely<any>` outside migrations: a helper that serves several schemas takes
//      `Kysely<DB>` with `DB` a type parameter.
//   3. No source file over 300 lines (tests, fixtures and migrations excepted).
//   4. One definition per name: an exported function, class or constant is defined in one
//      source file of the workspace (re-exports are not definitions).
//   5. Data flows one way: a package imports only packages below it in LAYERS.
// Prints every finding and exits 1 when there is one. `--json` prints the figures as JSON.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const root = resolve(dirname(new URL(import.meta.url).pathname), '..')
const MAX_LINES = 300

/** Who may import whom: a package may import the packages of the layers before its own. */
const LAYERS = [
  ['@kcore/engine', '@cal/recurrence'],
  ['@kcore/db'],
  ['@kcore/webhooks'],
  ['@kcore/store', '@cal/store'],
  ['@kcore/explorer'],
  ['@kcore/http-adapter'],
  ['@kcore/service'],
  ['@kcore/cli'],
]
const layerOf = new Map(LAYERS.flatMap((names, i) => names.map((name) => [name, i])))

const isTest = (file) =>
  /\.(test|fixture|script)\.ts$/.test(file) ||
  /\/(test|testing|fixtures|bench|examples|scripts)\//.test(file) ||
  file.endsWith('/testing.ts') ||
  file.endsWith('.d.ts')
const isMigration = (file) => /\/migrations\//.test(file)

function walk(dir, out = []) {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist') continue
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) walk(path, out)
    else if (/\.(ts|mts)$/.test(entry)) out.push(path)
  }
  return out
}

// The workspace packages and where their import paths lead (the "source" export condition).
const packages = new Map()
for (const dir of readdirSync(join(root, 'packages'))) {
  const pkgDir = join(root, 'packages', dir)
  let pkg
  try {
    pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'))
  } catch {
    continue
  }
  const entries = new Map()
  for (const [sub, target] of Object.entries(pkg.exports ?? {})) {
    const source = typeof target === 'object' ? target.source : undefined
    if (source)
      entries.set(sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`, join(pkgDir, source))
  }
  packages.set(pkg.name, { dir: pkgDir, entries })
}
const packageOfFile = (file) => {
  for (const [name, { dir }] of packages) if (file.startsWith(`${dir}/`)) return name
  return undefined
}

const files = [...packages.values()].flatMap(({ dir }) => walk(join(dir, 'src')))
const sources = files.filter((f) => !isTest(f))
const sourceSet = new Set(sources)

const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/g
const DYNAMIC = /import\(\s*['"]([^'"]+)['"]\s*\)/g

function resolveImport(from, spec) {
  if (spec.startsWith('.')) {
    const base = resolve(dirname(from), spec)
    for (const candidate of [
      base.replace(/\.js$/, '.ts'),
      base.replace(/\.mjs$/, '.mts'),
      `${base}.ts`,
      join(base, 'index.ts'),
    ])
      if (sourceSet.has(candidate) || files.includes(candidate)) return candidate
    return undefined
  }
  for (const { entries } of packages.values()) if (entries.has(spec)) return entries.get(spec)
  return undefined
}

const findings = []
const edges = new Map()
for (const file of sources) {
  const text = readFileSync(file, 'utf8')
  const targets = new Set()
  const specs = [...text.matchAll(IMPORT), ...text.matchAll(DYNAMIC)].map((m) => m[1])
  for (const spec of specs) {
    const target = resolveImport(file, spec)
    if (target && sourceSet.has(target)) targets.add(target)
    const [from, to] = [
      packageOfFile(file),
      spec.startsWith('.') ? undefined : spec.split('/').slice(0, 2).join('/'),
    ]
    if (to && packages.has(to) && from !== to) {
      const [a, b] = [layerOf.get(from), layerOf.get(to)]
      if (a === undefined || b === undefined || b >= a)
        findings.push(`layers: ${rel(file)} imports ${spec} (${from} may not import ${to})`)
    }
  }
  edges.set(file, [...targets])

  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
  if (lines > MAX_LINES && !isMigration(file))
    findings.push(`size: ${rel(file)} has ${lines} lines (at most ${MAX_LINES})`)
  if (!isMigration(file) && /Kysely<\s*any\s*>/.test(text))
    findings.push(`Kysely<any>: ${rel(file)} (take Kysely<DB> with DB a type parameter)`)
}

// Cycles: Tarjan's strongly connected components over the import graph.
let index = 0
const stack = []
const state = new Map()
const cycles = []
function strongConnect(v) {
  state.set(v, { index, low: index, onStack: true })
  index++
  stack.push(v)
  for (const w of edges.get(v) ?? []) {
    if (!state.has(w)) {
      strongConnect(w)
      state.get(v).low = Math.min(state.get(v).low, state.get(w).low)
    } else if (state.get(w).onStack)
      state.get(v).low = Math.min(state.get(v).low, state.get(w).index)
  }
  if (state.get(v).low === state.get(v).index) {
    const component = []
    let w
    do {
      w = stack.pop()
      state.get(w).onStack = false
      component.push(w)
    } while (w !== v)
    if (component.length > 1 || (edges.get(v) ?? []).includes(v)) cycles.push(component)
  }
}
for (const v of sources) if (!state.has(v)) strongConnect(v)
for (const cycle of cycles)
  findings.push(`cycle of ${cycle.length} files: ${cycle.map(rel).sort().join(', ')}`)

// One definition per exported name.
const DEFINITION =
  /(?:^|\n)export\s+(?:async\s+)?(?:function\*?|class|const|let)\s+([A-Za-z_$][\w$]*)/g
const definedIn = new Map()
for (const file of sources) {
  if (isMigration(file)) continue
  for (const [, name] of readFileSync(file, 'utf8').matchAll(DEFINITION)) {
    if (!definedIn.has(name)) definedIn.set(name, [])
    definedIn.get(name).push(file)
  }
}
for (const [name, where] of definedIn)
  if (where.length > 1) findings.push(`defined twice: ${name} in ${where.map(rel).join(', ')}`)

function rel(file) {
  return relative(root, file)
}

const lineCount = (list) =>
  list.reduce((sum, f) => sum + readFileSync(f, 'utf8').split('\n').length - 1, 0)
if (process.argv.includes('--json')) {
  const perPackage = {}
  for (const [name, { dir }] of packages) {
    const own = sources.filter((f) => f.startsWith(`${dir}/`))
    perPackage[name] = { files: own.length, lines: lineCount(own) }
  }
  console.log(
    JSON.stringify({ cycles: cycles.length, findings: findings.length, perPackage }, null, 2),
  )
}
for (const finding of findings) console.log(finding)
console.log(
  `architecture: ${sources.length} source files, ${lineCount(sources)} lines, ${cycles.length} import cycles, ${findings.length} findings`,
)
process.exit(findings.length > 0 ? 1 : 0)
