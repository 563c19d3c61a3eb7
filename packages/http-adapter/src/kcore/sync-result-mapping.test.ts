import { describe, expect, it } from 'vitest'
import { mapResults, toRefreshResult, toUpdateResult } from './sync-result-mapping.js'

const failed = {
  checked: false,
  added: ['2024-01-01'],
  latestDate: '2024-03-01',
  error: '1 of 2 ipv4 snapshots failed (2024-02-01: truncated)',
  failures: [{ date: '2024-02-01', error: 'truncated' }],
}
const fine = { checked: true, added: [], latestDate: null, error: null, failures: [] }

describe('sync result mapping', () => {
  it('maps a refresh result, with error only when not processed', () => {
    expect(toRefreshResult(failed)).toEqual({
      processed: false,
      success: false,
      snapshots_added: 1,
      processed_dates: ['2024-01-01'],
      latest_date: '2024-03-01',
      error: failed.error,
    })
    expect(toRefreshResult(fine)).toEqual({
      processed: true,
      success: true,
      snapshots_added: 0,
      processed_dates: [],
      latest_date: null,
    })
  })

  it('maps an update result', () => {
    expect(toUpdateResult(failed)).toEqual({
      checked: false,
      updated: true,
      new_snapshots: 1,
      error: failed.error,
      success: false,
    })
    expect(toUpdateResult(fine)).toEqual({
      checked: true,
      updated: false,
      new_snapshots: 0,
      error: null,
      success: true,
    })
  })

  it('keeps only and exactly the versions asked, in order', () => {
    const out = mapResults({ ipv6: fine, ipv4: failed }, ['ipv4'], toUpdateResult)
    expect(Object.keys(out)).toEqual(['ipv4'])
  })
})
