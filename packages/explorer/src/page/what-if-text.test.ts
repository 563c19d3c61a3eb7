import { describe, expect, it } from 'vitest'
import type { WhatIfResponse } from './api-types.js'
import { moreText, whatIfSummary } from './what-if-text.js'

const answer = (counts: Partial<WhatIfResponse['counts']>): WhatIfResponse => ({
  date: '2013-02-01',
  ip_version: 'ipv4',
  max_shell_before: 66,
  max_shell: 65,
  counts: {
    changed: 0,
    removed_asns: 0,
    added_asns: 0,
    ignored_asns: 0,
    removed_links: 0,
    added_links: 0,
    ignored_links: 0,
    ...counts,
  },
  changes: [],
})

describe('the what-if texts', () => {
  it('sums the answer up in one sentence', () => {
    expect(
      whatIfSummary(answer({ changed: 3691, removed_asns: 1, removed_links: 3820 }), 3691),
    ).toBe(
      '2013-02-01 IPv4: largest shell index 66 → 65; 3,691 ASes change shell index, 3,691 of them down; 1 AS removed with 3,820 links.',
    )
    expect(whatIfSummary(answer({ ignored_asns: 1 }), 0)).toBe(
      '2013-02-01 IPv4: largest shell index 66 → 65; no other AS changes shell index; 0 ASes removed with 0 links (1 AS named not in this snapshot).',
    )
  })

  it('counts what the table leaves out', () => {
    expect(moreText(0)).toBe('')
    expect(moreText(1)).toBe('1 more AS drops less (not listed).')
    expect(moreText(3486)).toBe('3,486 more ASes drop less (not listed).')
  })
})
