/** Options naming what the main thread runs that take a value: the value goes with them. */
const ENTRY_WITH_VALUE = new Set(['--eval', '--print', '--input-type'])

/** Options naming how the main thread runs: its REPL, a syntax check. */
const ENTRY_FLAGS = new Set(['--interactive', '--check'])

/** Short options of those (a cluster such as `-pe` holds several); `e` and `p` take the script. */
const SHORT_WITH_VALUE = /[ep]/
const SHORT_ENTRY = /^-[a-zA-Z]+$/
const SHORT_NAMES = /^[epic]+$/

/**
 * The host's `process.execArgv` less what only names the main thread's own entry point: the
 * code of `-e`/`--eval`/`-p`/`--print` (a worker would not run it anyway), `--input-type`
 * (refused in a worker started from a file: `ERR_INPUT_TYPE_NOT_ALLOWED`), the REPL's `-i`
 * and `--check`. Everything else (`--import`, `--conditions`, memory and warning flags) is
 * kept, as a worker inherits it by default.
 */
export function workerExecArgv(execArgv: readonly string[]): string[] {
  const kept: string[] = []
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!
    const name = arg.split('=', 1)[0]!
    if (ENTRY_WITH_VALUE.has(name)) {
      if (!arg.includes('=')) i++
      continue
    }
    if (ENTRY_FLAGS.has(name)) continue
    if (SHORT_ENTRY.test(arg) && SHORT_NAMES.test(arg.slice(1))) {
      if (SHORT_WITH_VALUE.test(arg)) i++
      continue
    }
    kept.push(arg)
  }
  return kept
}

/** Flags that shape how a worker loads its modules, with the value each takes. */
const LOADING = /^(--conditions|-C|--import|--require|-r|--loader|--experimental-loader)$/

/**
 * {@link workerExecArgv} narrowed to the flags that load modules (`--conditions`, `--import`,
 * `--require`, loaders) and `--enable-source-maps`: what a worker keeps when Node refuses the
 * host's other flags in a worker (`--expose-gc` and other V8 options of the process:
 * `ERR_WORKER_INVALID_EXEC_ARGV`).
 */
export function workerLoadingArgv(execArgv: readonly string[]): string[] {
  const all = workerExecArgv(execArgv)
  const kept: string[] = []
  for (let i = 0; i < all.length; i++) {
    const arg = all[i]!
    const name = arg.split('=', 1)[0]!
    if (arg === '--enable-source-maps') kept.push(arg)
    else if (LOADING.test(name)) {
      kept.push(arg)
      if (!arg.includes('=') && i + 1 < all.length) kept.push(all[++i]!)
    }
  }
  return kept
}
