import { afterEach, describe, expect, it, vi } from 'vitest'
import { vtimezone } from '../src/cal/vtimezone.js'

// A zone the runtime does not know must give no VTIMEZONE and write nothing to stderr: a
// library that logs past the host's logger would do so on every render of such a zone.
describe('vtimezone', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('returns null for a zone the runtime does not know, writing nothing', () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {})
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const now = Date.UTC(2026, 0, 1)
    expect(vtimezone('Mars/Olympus_Mons', now, now)).toBeNull()
    expect(vtimezone('', now, now)).toBeNull()
    expect(consoleError).not.toHaveBeenCalled()
    expect(stderr).not.toHaveBeenCalled()
  })

  it('still renders known zones, aliases under their own name', () => {
    const now = Date.UTC(2026, 0, 1)
    expect(vtimezone('Europe/Amsterdam', now, now)).toMatch(/^TZID:Europe\/Amsterdam$/m)
    expect(vtimezone('Asia/Calcutta', now, now)).toMatch(/^TZID:Asia\/Calcutta$/m)
  })
})
