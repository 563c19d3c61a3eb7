import { describe, expect, it } from 'vitest'
import { shellHistogram } from './shell-histogram.js'

describe('shellHistogram', () => {
  it('moves each changed AS from its shell to the new one, every shell listed once', () => {
    const histogram = shellHistogram(
      [
        { shell_index: 1, count: 10 },
        { shell_index: 2, count: 5 },
        { shell_index: 4, count: 2 },
      ],
      [
        { asn: 1, before: 4, after: 2 },
        { asn: 2, before: 4, after: null },
        { asn: 3, before: 2, after: 1 },
        { asn: 64512, before: null, after: 1 },
      ],
    )
    expect(histogram).toEqual({
      shells: [1, 2, 3, 4],
      before: [10, 5, 0, 2],
      after: [12, 5, 0, 0],
    })
  })

  it('ends at the largest non-empty shell of either side', () => {
    const emptied = shellHistogram(
      [{ shell_index: 1, count: 1 }],
      [{ asn: 1, before: 1, after: null }],
    )
    expect(emptied).toEqual({ shells: [1], before: [1], after: [0] })
    const grown = shellHistogram([{ shell_index: 1, count: 2 }], [{ asn: 5, before: 1, after: 2 }])
    expect(grown).toEqual({ shells: [1, 2], before: [2, 0], after: [1, 1] })
  })

  it('lists shell 0 when an AS is left with no link', () => {
    const stranded = shellHistogram(
      [
        { shell_index: 1, count: 3 },
        { shell_index: 2, count: 3 },
      ],
      [
        { asn: 1, before: 1, after: 0 },
        { asn: 2, before: 2, after: null },
      ],
    )
    expect(stranded).toEqual({ shells: [0, 1, 2], before: [0, 3, 3], after: [1, 2, 2] })
  })
})
