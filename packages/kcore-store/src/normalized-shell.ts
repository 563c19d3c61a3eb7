/**
 * `normalized_shell_index`: a shell index over its snapshot's largest, in [0, 1], and 0 when
 * that largest is 0 (a snapshot of isolated ASes), never NaN. The one place this rule lives:
 * every answer that carries the field (trends, overviews, shell lists, movers) computes it here.
 */
export function normalizedShell(shell: number, maxShell: number): number {
  return maxShell > 0 ? shell / maxShell : 0
}
