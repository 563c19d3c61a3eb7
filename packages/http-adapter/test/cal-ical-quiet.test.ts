import { afterEach, describe, expect, it, vi } from 'vitest'
import { vtimezone } from '../src/cal/ical-feed.js'

// The zone library reports an unknown zone with console.error: in a library that bypasses the
// host's logger and writes to stderr on every ICS render of such a zone.
describe('vtimezone', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('returns null for a zone the library does not know, writing nothing', () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {})
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    expect(vtimezone('Mars/Olympus_Mons')).toBeNull()
    expect(vtimezone('')).toBeNull()
    expect(consoleError).not.toHaveBeenCalled()
    expect(stderr).not.toHaveBeenCalled()
  })

  it('still renders known zones, aliases under their own name', () => {
    expect(vtimezone('Europe/Amsterdam')).toMatch(/^TZID:Europe\/Amsterdam$/m)
  })
})
