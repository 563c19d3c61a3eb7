import type { DistributionResponse, ShellChange } from './api-types.js'

/** How many ASes each shell holds before and after a what-if, shell 1 to the largest. */
export interface ShellHistogram {
  /** `1..max` of both sides, every shell once, empty ones included; from 0 when an AS is left with no link. */
  shells: number[]
  before: number[]
  after: number[]
}

/**
 * The before/after histogram from the snapshot's distribution and the what-if's changes: each
 * change moves one AS out of its `before` shell and into its `after` one (a removed AS leaves
 * only, an AS brought in by a link arrives only). Shells empty on both sides past the largest
 * are not listed. An AS whose every link went with a removed AS has shell index 0: shell 0 is
 * listed then, so the ASes stranded show rather than vanish from the "after" side.
 */
export function shellHistogram(
  distribution: DistributionResponse['shells'],
  changes: readonly ShellChange[],
): ShellHistogram {
  const before = new Map<number, number>()
  for (const { shell_index, count } of distribution) before.set(shell_index, count)
  const after = new Map(before)
  const bump = (shell: number, by: number) => after.set(shell, (after.get(shell) ?? 0) + by)
  for (const change of changes) {
    if (change.before !== null) bump(change.before, -1)
    if (change.after !== null) bump(change.after, 1)
  }
  let max = 0
  for (const map of [before, after])
    for (const [shell, count] of map) if (count > 0 && shell > max) max = shell
  const first = (after.get(0) ?? 0) > 0 || (before.get(0) ?? 0) > 0 ? 0 : 1
  const shells = Array.from({ length: Math.max(0, max - first + 1) }, (_, i) => i + first)
  return {
    shells,
    before: shells.map((s) => before.get(s) ?? 0),
    after: shells.map((s) => after.get(s) ?? 0),
  }
}
