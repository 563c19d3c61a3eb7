import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

// Two sizes of the same suite (see "Tests" in the README):
// - `pnpm test` (default): every package, on PGlite and on PostgreSQL when DATABASE_URL is set,
//   fuzz at reduced size, without the slow suites: files named `*.slow.test.ts` (child
//   processes, other runtimes, browsers, concurrency model runs, anything over ~30 s).
// - `pnpm test:all` (KCORE_TEST_ALL=1, what CI runs): everything, fuzz at full size.
const all = process.env.KCORE_TEST_ALL === '1'
const SLOW = '**/*.slow.test.ts'
const WORKERS = Math.max(3, availableParallelism())

// One line each for what the run leaves out, so a skip is never silent. Printed by the main
// process only (workers load the config too).
if (!process.env.VITEST_POOL_ID && !process.env.VITEST_WORKER_ID) {
  if (!all) console.log(`Slow suites skipped (${SLOW}): run \`pnpm test:all\` for them`)
  if (!process.env.DATABASE_URL)
    console.log(
      'PostgreSQL tests skipped: DATABASE_URL not set (e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres pnpm test)',
    )
}

// Workspace packages resolve to their TypeScript sources through the "source"
// export condition, so tests never need a build first.
export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/test/**/*.test.ts',
      'examples/test/**/*.test.ts',
    ],
    // The explorer page's bundles, which the mount, bundle and browser tests serve.
    globalSetup: ['packages/explorer/test/build-page.global-setup.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', ...(all ? [] : [SLOW])],
    env: all || process.env.FUZZ_RUNS ? {} : { FUZZ_RUNS: '300' },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The default run: Vitest's default leaves one core to its main process (one worker on a
    // 2-core machine), but most test files wait on PostgreSQL, child processes or timers: three
    // workers overlap those. minWorkers = maxWorkers: with fewer, tinypool's teardown of a spare
    // worker rejects ("Terminating worker thread") and fails a green run when isolate is off.
    // Test files share their worker's module cache (no file mocks modules or globals): imports
    // and PGlite's WebAssembly load once per worker, not once per file (collect 100 s → 18 s).
    // `pnpm test:all` keeps Vitest's defaults (isolated files, one worker here): its process and
    // timing suites measure what a lone process sees.
    ...(all ? {} : { maxWorkers: WORKERS, minWorkers: WORKERS, isolate: false }),
  },
})
