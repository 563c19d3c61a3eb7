/**
 * How many runs a property gets when each run costs a child process (the `bzip2` command) or
 * the decode of a real file: 10, and in `pnpm test:full` (KCORE_TEST_LEVEL=full) a thirtieth
 * of `FUZZ_RUNS` (333), so each suite stays within its time in CI and the full run keeps every
 * case. The cases differ on every run (fast-check's seed rotates and is printed on failure).
 */
export function costlyRuns(): number {
  if (process.env.KCORE_TEST_LEVEL !== 'full') return 10
  return Math.max(10, Math.floor(Number(process.env.FUZZ_RUNS ?? 10_000) / 30))
}

/** Whether exhaustive sizes run: `pnpm test:full` only. */
export const exhaustive = process.env.KCORE_TEST_LEVEL === 'full'
