import { describe, expect, it } from 'vitest'
import { canonicalTimeZone, isValidTimeZone, temporalZoneId } from '../src/index.js'

describe('zone ids', () => {
  it('accepts IANA names and UTC±H[:MM] offsets, nothing else', () => {
    for (const z of [
      'UTC',
      'America/New_York',
      'Europe/Amsterdam',
      'UTC+2',
      'UTC-3:30',
      'UTC+14',
    ]) {
      expect(isValidTimeZone(z), z).toBe(true)
    }
    for (const z of [
      '',
      'Mars/Olympus',
      'UTC+15',
      'UTC+2:75',
      'utc+2',
      '+02:00',
      '../etc',
      'UTC+',
    ]) {
      expect(isValidTimeZone(z), z).toBe(false)
    }
  })

  it('gives Temporal the id of each form', () => {
    expect(temporalZoneId('UTC')).toBe('UTC')
    expect(temporalZoneId('UTC+5:30')).toBe('+05:30')
    expect(temporalZoneId('UTC-12')).toBe('-12:00')
    expect(temporalZoneId('America/New_York')).toBe('America/New_York')
    expect(() => temporalZoneId('UTC+15')).toThrow(RangeError)
    expect(() => temporalZoneId('Mars/Olympus')).toThrow(RangeError)
  })
  it('spells each zone one way', () => {
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin')
    expect(canonicalTimeZone('AMERICA/NEW_YORK')).toBe('America/New_York')
    expect(canonicalTimeZone('utc')).toBe('UTC')
    expect(canonicalTimeZone('UTC+05:30')).toBe('UTC+5:30')
    expect(canonicalTimeZone('UTC-0')).toBe('UTC')
    expect(canonicalTimeZone('UTC+14')).toBe('UTC+14')
    expect(canonicalTimeZone('UTC+15')).toBeUndefined()
    expect(canonicalTimeZone('Mars/Olympus')).toBeUndefined()
  })
})
