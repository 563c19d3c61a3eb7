import { execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { rotatingSample } from '../src/testing.js'

// Child processes that open the embedded database under the flags a host may have been
// started with: PGlite's worker thread must start whatever they are (Node gives a worker the
// host's execArgv unless told otherwise, and `--input-type` refuses a worker's file entry).
// The built package, as installed (`pnpm test:all` builds dist first), and the sources.
const packageDir = fileURLToPath(new URL('..', import.meta.url))
const fixture = fileURLToPath(new URL('./open-embedded.fixture.ts', import.meta.url))
const TIMEOUT_MS = 110_000

const esm = `import { openDatabase } from '@kcore/db'
const database = await openDatabase({})
console.log('ping ' + (await database.ping()))
await database.close()`
// One line (the REPL reads it as one): statements end with semicolons.
const cjs = [
  "import('@kcore/db').then(async ({ openDatabase }) => {",
  'const database = await openDatabase({});',
  "console.log('ping ' + (await database.ping()));",
  'await database.close();',
  "}).catch((error) => console.log('failed: ' + error.message))",
].join(' ')

async function run(args: string[]): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, args, {
    cwd: packageDir,
    timeout: TIMEOUT_MS,
  }).catch((error: { stdout?: string; stderr?: string }) => ({
    stdout: error.stdout ?? '',
    stderr: error.stderr ?? String(error),
  }))
  return `${stdout}${stderr}`
}

/** `node -i` fed on stdin, kept open until the answer (a closed stdin ends the REPL at once). */
function repl(line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-i'], { cwd: packageDir })
    let output = ''
    const timer = setTimeout(() => child.kill(), TIMEOUT_MS)
    const onData = (chunk: Buffer) => {
      output += chunk
      if (/ping \w+|failed: /.test(output)) child.stdin.end('.exit\n')
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('error', reject)
    child.on('close', () => {
      clearTimeout(timer)
      resolve(output)
    })
    child.stdin.write(`${line}\n`)
  })
}

/** Each case is a child process that starts PGlite from nothing (seconds each). */
const cases: Record<string, () => Promise<string>> = {
  '--eval': () => run(['--eval', cjs]),
  'the REPL (node -i)': () => repl(cjs),
  '--import tsx running a TypeScript script': () => run(['--import', 'tsx', fixture]),
  '--import tsx --conditions=source --input-type=module -e, from the sources': () =>
    run(['--import', 'tsx', '--conditions=source', '--input-type=module', '-e', esm]),
}

describe('the embedded database opens whatever flags its host was started with', () => {
  beforeAll(() => {
    const dist = new URL('../dist/index.js', import.meta.url)
    expect(existsSync(dist), 'build first: pnpm build:changed').toBe(true)
  })

  // The one-liner of the report, in every run; of the others, two a run (all in test:full).
  it('--input-type=module -e', async () => {
    expect(await run(['--input-type=module', '-e', esm])).toContain('ping true')
  })

  it.each(rotatingSample('worker flags', Object.keys(cases), 2))('%s', async (name) => {
    expect(await cases[name]!()).toContain('ping true')
  })
})
