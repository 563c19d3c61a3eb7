import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * Vitest's own order (the last run's longest files first, else the largest), with the process
 * suites (`*.slow.test.ts`, `*.slow.full.test.ts`) ahead of the rest. A clean clone has no last run, and those suites
 * are the longest files while seldom the largest: one that starts last holds the whole run up
 * while the other workers idle. `--sequence.shuffle.files` (`pnpm test:flakes`) replaces this.
 */
export class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const slow = (file: TestSpecification) => /\.slow(\.full)?\.test\.ts$/.test(file.moduleId)
    return [...sorted.filter(slow), ...sorted.filter((file) => !slow(file))]
  }
}
