import type { DecodedShells } from './shell-blobs.js'

/**
 * Snapshot columns laid side by side, one tile of ASes at a time: for the slots `from` to
 * `to - 1` of `union` (ascending, holding every column's ASNs), `values[(slot - from) * n + i]`
 * becomes the shell index + 1 of that AS in `columns[i]` (0: absent; n = `columns.length`).
 * `next[i]` is column i's position in its ASNs, advanced past the tile, so tiles taken in order
 * walk each column once: how the trend read model lays its rows out.
 */
export function transposeTile(
  columns: readonly DecodedShells[],
  union: Uint32Array,
  from: number,
  to: number,
  next: Uint32Array,
  values: Uint32Array,
): void {
  const n = columns.length
  values.fill(0, 0, (to - from) * n)
  const last = union[to - 1]!
  for (let i = 0; i < n; i++) {
    const { asns, shells } = columns[i]!
    let slot = from
    let p = next[i]!
    for (; p < asns.length && asns[p]! <= last; p++) {
      while (union[slot]! !== asns[p]) slot++
      values[(slot - from) * n + i] = shells[p]! + 1
    }
    next[i] = p
  }
}
