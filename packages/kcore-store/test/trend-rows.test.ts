import { describe, expect, it } from 'vitest'
import { rowsView, SLICE_CELLS, type SnapshotColumn, toRows } from '../src/trend-rows.js'

// The transposition runs on the thread that answers requests, after every snapshot a refresh
// stores: it must let the event loop turn while it works, and give the same rows whatever the
// slicing.

/** `count` columns over `size` ASNs; column i holds every ASN whose index is not a multiple of i+2. */
function columns(count: number, size: number): SnapshotColumn[] {
  return Array.from({ length: count }, (_, i) => {
    const asns: number[] = []
    const shells: number[] = []
    for (let a = 0; a < size; a++) {
      if (a % (i + 2) === 0) continue
      asns.push(a * 3 + 1)
      shells.push((a + i) % 300)
    }
    return {
      date: `2000-${String(i + 1).padStart(2, '0')}-01`,
      maxShell: 299,
      asns: Uint32Array.from(asns),
      shells: Uint16Array.from(shells),
      points: [],
    }
  })
}

/** `work`'s result and how many times the event loop turned while it ran. */
async function countingTurns<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0
  let done = false
  const turn = () => {
    turns++
    if (!done) setImmediate(turn)
  }
  setImmediate(turn)
  const result = await work()
  done = true
  return { result, turns }
}

describe('toRows', () => {
  it('lets the event loop turn while it transposes, and places every shell index', async () => {
    const count = 6
    const size = Math.ceil((3 * SLICE_CELLS) / count)
    const input = columns(count, size)
    const { result: rows, turns } = await countingTurns(() => toRows(input, undefined))
    // Three slices' worth of cells: at least two turns came between them.
    expect(turns).toBeGreaterThanOrEqual(2)
    const asns = [1, 4, 7, 3 * (size - 1) + 1, 3 * 12 + 1]
    const view = rowsView(rows, asns)
    for (const asn of asns) {
      const a = (asn - 1) / 3
      const expected = input.flatMap((c, i) =>
        a % (i + 2) === 0 ? [] : [{ date: c.date, shell: (a + i) % 300 }],
      )
      expect(
        view.trends.get(asn)?.map((p) => ({ date: p.date, shell: p.shell_index })),
        `AS${asn}`,
      ).toEqual(expected)
    }
  })

  it('lets the event loop turn when a slice takes long, before its cells are done', async () => {
    // Four tiles, far fewer cells than a slice, on a clock that moves 5 ms at every look: the
    // loop turns between tiles, as before V8 has optimized the transposition.
    const input = columns(2, 4 * 1024)
    let clock = 0
    const { result: rows, turns } = await countingTurns(() =>
      toRows(input, undefined, () => (clock += 5)),
    )
    expect(input.length * rows.union.length).toBeLessThan(SLICE_CELLS)
    expect(turns).toBeGreaterThanOrEqual(2)
  })
})
