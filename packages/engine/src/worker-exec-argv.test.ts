import { describe, expect, it } from 'vitest'
import { workerExecArgv, workerLoadingArgv } from './worker-exec-argv.js'

describe('workerExecArgv', () => {
  it.each([
    // what process.execArgv holds in each way of running node
    [['--input-type=module', '-e', 'code'], []],
    [['--conditions=source', '--input-type', 'module', '-e', 'code'], ['--conditions=source']],
    [['--eval', 'code'], []],
    [['--eval=code'], []],
    [['-p', 'code'], []],
    [['-pe', 'code'], []],
    [['--print', 'code', '--no-warnings'], ['--no-warnings']],
    [['-i'], []],
    [['--interactive', '--max-old-space-size=512'], ['--max-old-space-size=512']],
    [
      ['--import', 'tsx'],
      ['--import', 'tsx'],
    ],
    [
      ['--import=tsx', '--enable-source-maps'],
      ['--import=tsx', '--enable-source-maps'],
    ],
    [
      ['-r', './setup.cjs'],
      ['-r', './setup.cjs'],
    ],
    [['--check', '--watch'], ['--watch']],
    [[], []],
  ])('%j → %j', (execArgv, expected) => {
    expect(workerExecArgv(execArgv)).toEqual(expected)
  })
})

describe('workerLoadingArgv', () => {
  it('keeps only the flags that load modules, with their values', () => {
    expect(
      workerLoadingArgv([
        '--expose-gc',
        '--conditions',
        'source',
        '--import=tsx',
        '--max-old-space-size=2048',
        '-r',
        './setup.cjs',
        '--enable-source-maps',
        '--input-type=module',
        '-e',
        'code',
      ]),
    ).toEqual([
      '--conditions',
      'source',
      '--import=tsx',
      '-r',
      './setup.cjs',
      '--enable-source-maps',
    ])
  })
})
