import { relative } from 'node:path'
import type { Reporter, TestModule } from 'vitest/node'

/** Files over this many seconds break the CI level's rule (see "Tests" in the README). */
const BOUND_S = 30

/**
 * Prints the ten slowest test files of the run with their times (import and tests), and every
 * file over {@link BOUND_S} seconds, so where CI's time goes is in every log. A figure, not a
 * check: the run's verdict is the tests'.
 */
export class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const timed = modules
      .map((module) => {
        const d = module.diagnostic()
        return {
          file: relative(process.cwd(), module.moduleId),
          project: module.project.name,
          seconds: (d.collectDuration + d.setupDuration + d.duration) / 1000,
        }
      })
      .sort((a, b) => b.seconds - a.seconds)
    if (timed.length === 0) return
    const line = (t: (typeof timed)[number]) =>
      `  ${t.seconds.toFixed(1).padStart(6)} s  ${t.project.padEnd(7)} ${t.file}`
    console.log(`\nThe ten slowest test files of ${timed.length}:`)
    for (const t of timed.slice(0, 10)) console.log(line(t))
    const over = timed.filter((t) => t.seconds > BOUND_S)
    console.log(
      over.length === 0
        ? `No test file over ${BOUND_S} s.`
        : `${over.length} test file(s) over ${BOUND_S} s: ${over.map((t) => t.file).join(', ')}`,
    )
  }
}
