import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { caidaDir } from './caida-data.js'

// A researcher's one-liner, a REPL, a script run through tsx: the decode workers must start
// whatever flags the host process was given (a worker inherits execArgv, and some of those
// are refused in a worker: `--input-type` without string input). Each way decomposes a real
// file on the calling thread, in the process-wide pool and split over a pool of two, and
// prints one line the test reads. The built package (dist/) for the node ways, the sources
// for tsx.
const file = `${caidaDir}20140101.as-rel.txt.bz2` // 553 kB: split in two parts
const root = fileURLToPath(new URL('../../..', import.meta.url))
const dist = pathToFileURL(fileURLToPath(new URL('../dist/index.js', import.meta.url))).href
const source = pathToFileURL(fileURLToPath(new URL('../src/index.ts', import.meta.url))).href

/** The statements, as an ES module runs them (top-level await). */
const statements = (engine: string) => [
  `const { readFile } = await import('node:fs/promises')`,
  `const engine = await import(${JSON.stringify(engine)})`,
  `const bytes = new Uint8Array(await readFile(${JSON.stringify(file)}))`,
  'const here = (await engine.decomposeSnapshot(bytes)).decomposition',
  'const shared = (await engine.decomposeInWorker(bytes)).decomposition',
  'const pool = new engine.DecomposePool({ size: 2 })',
  'const split = (await pool.decompose(bytes)).decomposition',
  'const started = pool.workers.started; await pool.close()',
  'const same = (d) => Buffer.from(d.shells.buffer).equals(Buffer.from(here.shells.buffer))',
  'console.log("RESULT " + JSON.stringify({ maxShell: here.maxShell, shared: same(shared), split: same(split), started }))',
]

function run(args: string[], input?: string): unknown {
  const output = execFileSync(process.execPath, args, {
    cwd: root,
    input,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  })
  const line = output.split('\n').find((l) => l.includes('RESULT {'))
  expect(line, output).toBeDefined()
  return JSON.parse(line!.slice(line!.indexOf('RESULT ') + 7))
}

const expected = { maxShell: expect.any(Number), shared: true, split: true, started: 2 }

describe('the decode workers start whatever flags the host was given', () => {
  it('has the built package (pnpm --filter @kcore/engine build)', () => {
    expect(existsSync(new URL(dist))).toBe(true)
  })

  it('node --input-type=module -e', () => {
    expect(run(['--input-type=module', '-e', statements(dist).join('\n')])).toEqual(expected)
  })

  it('node --eval (CommonJS)', () => {
    const script = `(async () => {\n${statements(dist).join('\n')}\n})()`
    expect(run(['--eval', script])).toEqual(expected)
  })

  // V8 options a worker refuses (ERR_WORKER_INVALID_EXEC_ARGV): a host measuring memory
  it('node --expose-gc --max-old-space-size=2048 -e', () => {
    const args = ['--expose-gc', '--max-old-space-size=2048', '--input-type=module', '-e']
    expect(run([...args, statements(dist).join('\n')])).toEqual(expected)
  })

  // in one line: the REPL reading a pipe does not wait for one line's await before the next
  it('the REPL, node -i', () => {
    const line = `await (async () => { ${statements(dist).join('; ')} })()`
    expect(run(['-i'], `${line}\n.exit\n`)).toEqual(expected)
  })

  it('node --import tsx script.mts, from the sources', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kcore-host-flags-'))
    try {
      const script = join(dir, 'script.mts')
      await writeFile(script, `${statements(source).join('\n')}\nexport {}\n`)
      expect(run(['--import', 'tsx', script])).toEqual(expected)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
