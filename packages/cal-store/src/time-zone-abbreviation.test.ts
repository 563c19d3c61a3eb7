import { describe, expect, it } from 'vitest'
import { timezoneAbbreviation } from './time-zone-abbreviation.js'

const winter = new Date('2026-01-15T12:00:00Z')
const summer = new Date('2026-07-15T12:00:00Z')

describe('timezoneAbbreviation', () => {
  it.each([
    ['Europe/Amsterdam', 'CET', 'CEST'],
    ['Europe/London', 'GMT', 'BST'],
    ['America/New_York', 'EST', 'EDT'],
    ['Asia/Tokyo', 'JST', 'JST'],
    ['Asia/Kolkata', 'IST', 'IST'],
    ['Australia/Sydney', 'AEDT', 'AEST'],
    ['UTC', 'UTC', 'UTC'],
  ])('%s: the usual letters (%s / %s)', (zone, w, s) => {
    expect(timezoneAbbreviation(winter, zone)).toBe(w)
    expect(timezoneAbbreviation(summer, zone)).toBe(s)
  })

  it('writes zones without letters as the IANA data does', () => {
    expect(timezoneAbbreviation(winter, 'America/Sao_Paulo')).toBe('-03')
    expect(timezoneAbbreviation(winter, 'Asia/Kathmandu')).toBe('+0545')
  })

  it('says LMT before the first transition and keeps fixed offsets as written', () => {
    expect(timezoneAbbreviation(new Date('1000-01-01T08:00:00Z'), 'America/Los_Angeles')).toBe(
      'LMT',
    )
    expect(timezoneAbbreviation(winter, 'UTC+5:30')).toBe('UTC+5:30')
  })
})
