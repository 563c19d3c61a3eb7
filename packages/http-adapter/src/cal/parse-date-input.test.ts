import { describe, expect, it } from 'vitest'
import { HttpError } from '../http-error.js'
import { parseDateInput, readDateInput } from './parse-date-input.js'

const now = new Date('2026-03-08T12:00:00Z')

describe('parseDateInput', () => {
  it('reads a wall time in the zone', () => {
    const r = parseDateInput('2026-07-01 19:30:00', 'America/New_York', now)
    expect(r?.instant.toISOString()).toBe('2026-07-01T23:30:00.000Z')
    expect(r?.dateOnly).toBe(false)
  })

  it('honours an explicit offset and reports the wall time in the zone', () => {
    const r = parseDateInput('2026-07-01T12:00:00Z', 'Europe/Paris', now)
    expect(r?.instant.toISOString()).toBe('2026-07-01T12:00:00.000Z')
    expect(r?.wall.hour).toBe(14)
  })

  it('refuses a time in the spring-forward gap, naming the field', () => {
    expect(() => readDateInput('2026-03-08 02:30:00', 'America/New_York', now, 'end_date')).toThrow(
      /end_date/,
    )
    // A day alone is the instant it starts, even where midnight was skipped (Havana).
    const r = parseDateInput('2026-03-08', 'America/Havana', now)
    expect(r?.instant.toISOString()).toBe('2026-03-08T05:00:00.000Z')
  })

  it('reads relative days in the zone', () => {
    const r = parseDateInput('tomorrow', 'UTC+5:30', now)
    expect(r?.wall).toMatchObject({ year: 2026, month: 3, day: 9, hour: 0 })
    expect(r?.instant.toISOString()).toBe('2026-03-08T18:30:00.000Z')
    expect(r?.dateOnly).toBe(true)
  })

  it('refuses impossible or unknown forms', () => {
    expect(parseDateInput('2026-02-30', 'UTC', now)).toBeUndefined()
    expect(parseDateInput('2026-01-01 24:00', 'UTC', now)).toBeUndefined()
    expect(parseDateInput('next week', 'UTC', now)).toBeUndefined()
  })

  it('refuses the names of Object.prototype properties (no lookup reaches the prototype)', () => {
    for (const word of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])
      expect(parseDateInput(word, 'UTC', now), word).toBeUndefined()
  })

  it('reads a Unix timestamp in seconds as an instant', () => {
    const r = parseDateInput('542386800', 'Europe/Amsterdam', now)
    expect(r?.instant.toISOString()).toBe('1987-03-10T15:00:00.000Z')
    expect(r?.wall).toMatchObject({ year: 1987, month: 3, day: 10, hour: 16 })
    expect(r?.dateOnly).toBe(false)
    expect(parseDateInput('-1', 'UTC', now)?.instant.toISOString()).toBe('1969-12-31T23:59:59.000Z')
    expect(parseDateInput('8640000000001', 'UTC', now)).toBeUndefined()
    expect(parseDateInput('1.5', 'UTC', now)).toBeUndefined()
  })

  it('keeps years below 100 as written (no 1900 shift)', () => {
    expect(parseDateInput('0050-01-01 10:00:00', 'UTC', now)?.instant.toISOString()).toBe(
      '0050-01-01T10:00:00.000Z',
    )
  })
})

describe('readDateInput', () => {
  const field = (fn: () => unknown) => {
    try {
      fn()
    } catch (e) {
      return e instanceof HttpError ? e.status : 'other'
    }
    return 'ok'
  }
  it.each([
    ['1000-01-01 00:00:00', 'UTC', 'ok'],
    // The UTC instant must lie in range too (issue 26 item 8).
    ['9999-12-31 23:59:59', 'America/Los_Angeles', 400],
    ['9999-12-31 15:59:59', 'America/Los_Angeles', 'ok'],
    ['0999-12-31 23:59:59', 'UTC', 400],
    ['9999-12-31 23:59:59-12:00', 'UTC', 400],
    ['1000-01-01 00:00:00+14:00', 'UTC', 400],
    ['1000-01-01 00:00:00+14:00', 'Etc/GMT-14', 400],
    ['1000-01-01 14:00:00+14:00', 'Etc/GMT-14', 'ok'],
    ['-30610224001', 'UTC', 400],
    ['253402300799', 'UTC', 'ok'],
    ['253402300800', 'UTC', 400],
    ['nonsense', 'UTC', 400],
  ])('%s in %s → %s', (text, zone, expected) => {
    expect(field(() => readDateInput(text, zone, now, 'start_date'))).toBe(expected)
  })
})
