/**
 * Position of `value` in the ascending `array[from .. to)`, or -1: a binary search (node
 * numbers of a CSR neighbour list, ASNs of a graph).
 */
export function sortedIndexOf(
  array: Uint32Array,
  value: number,
  from = 0,
  to = array.length,
): number {
  let low = from
  let high = to
  while (low < high) {
    const mid = (low + high) >>> 1
    if (array[mid]! < value) low = mid + 1
    else high = mid
  }
  return low < to && array[low] === value ? low : -1
}
