import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { SlowFirst } from './.ci/slow-first.js'
import { SlowestFiles } from './.ci/slowest-files.js'

// Three sizes of one suite (see "Tests" in the README):
// - `pnpm test` (default): every package, on PGlite and on PostgreSQL when DATABASE_URL is set,
//   fuzz at reduced size, without the process suites (`*.slow.test.ts`: child processes, other
//   runtimes, browsers, concurrency model runs).
// - `pnpm test:all` (KCORE_TEST_LEVEL=all, what CI runs): the default suites plus the process
//   suites, fuzz at a size that fits CI, real-file parity and costly case tables on a sample
//   (`rotatingSample` of `@kcore/db/testing`). Seeds are fresh each run, but `.ci/run` pins one
//   (FC_SEED, KCORE_TEST_SEED: `packages/db/test/property-seed.setup.ts`).
// - `pnpm test:flakes`: the CI level three times in a row, files shuffled with a fresh seed
//   each time, while a CPU hog holds one of the two cores (`.ci/flakes.sh`).
// - `pnpm test:full` (KCORE_TEST_LEVEL=full): everything at full size, `*.full.test.ts` included
//   (parity on every real file, fuzz at 10,000 runs per property) and the process suites CI
//   leaves out (`*.slow.full.test.ts`: the second database's kill -9, more processes, more
//   browser panels, other runtimes, full disks; README, "Tests").
const level = process.env.KCORE_TEST_LEVEL ?? 'default'
const SLOW = '**/*.slow.test.ts'
const FULL = '**/*.full.test.ts'
/** Process suites only the full run takes (they also match FULL). */
const SLOW_FULL = '**/*.slow.full.test.ts'
const WORKERS = Math.max(3, availableParallelism())
// CI runs fuzz at the default size on a pinned seed; the full run keeps 10,000 per property and
// `test:flakes` draws fresh seeds, so the cases CI leaves out keep being run elsewhere.
const FUZZ_RUNS = { default: '300', all: '300', full: '10000' }[level] ?? '300'

// One line each for what the run leaves out, so a skip is never silent. Printed by the main
// process only (workers load the config too).
if (!process.env.VITEST_POOL_ID && !process.env.VITEST_WORKER_ID) {
  if (level === 'default')
    console.log(`Process suites skipped (${SLOW}): \`pnpm test:all\` runs them`)
  if (level !== 'full')
    console.log(`Full-size suites skipped (${FULL}): \`pnpm test:full\` runs them`)
  // CI runs every PostgreSQL suite: a missing DATABASE_URL there fails instead of skipping.
  if (!process.env.DATABASE_URL && process.env.CI === 'true' && level !== 'default')
    throw new Error('CI runs the PostgreSQL suites: set DATABASE_URL (.ci/run does)')
  if (!process.env.DATABASE_URL)
    console.log(
      'PostgreSQL tests skipped: DATABASE_URL not set (e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres pnpm test)',
    )
}

const include = [
  'packages/*/src/**/*.test.ts',
  'packages/*/test/**/*.test.ts',
  'examples/test/**/*.test.ts',
]
const exclude = ['**/node_modules/**', '**/dist/**']

// Workspace packages resolve to their TypeScript sources through the "source"
// export condition, so tests never need a build first.
export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    // The explorer page's bundles; this run's name for its throwaway PostgreSQL databases.
    globalSetup: [
      'packages/explorer/test/build-page.global-setup.ts',
      'packages/db/test/throwaway-databases.global-setup.ts',
    ],
    setupFiles: ['packages/db/test/property-seed.setup.ts'],
    // Importing the shipped AS-name slice costs seconds per first start; the services tests
    // start leave it out (seed-names.test.ts asks for it with a config of its own).
    env: { KCORE_SEED_NAMES: 'false', ...(process.env.FUZZ_RUNS ? {} : { FUZZ_RUNS }) },
    reporters: ['default', new SlowestFiles()],
    // Unless the files are shuffled (`test:flakes`): a sequencer set here would win over it.
    ...(process.argv.some((arg) => arg.startsWith('--sequence.shuffle'))
      ? {}
      : { sequence: { sequencer: SlowFirst } }),
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Most test files wait on PostgreSQL, child processes or timers: three workers overlap them
    // on two cores. minWorkers = maxWorkers: with fewer, tinypool's teardown of a spare worker
    // rejects ("Terminating worker thread") and fails a green run when isolate is off.
    maxWorkers: WORKERS,
    minWorkers: WORKERS,
    // Test files share their worker's module cache (no file mocks modules or globals): imports
    // load once per worker, not once per file, and `testDatabases()` keeps its PGlite engines
    // between files.
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include,
          exclude: [...exclude, SLOW, SLOW_FULL, ...(level === 'full' ? [] : [FULL])],
        },
      },
      ...(level === 'default'
        ? []
        : [
            {
              extends: true,
              test: {
                // Suites that start servers, other runtimes, browsers and child processes. They
                // assert what happens, never how fast, so they share the pool with the rest.
                name: 'process',
                include: level === 'full' ? [SLOW, SLOW_FULL] : [SLOW],
                exclude,
              },
            },
          ]),
    ],
  },
})
