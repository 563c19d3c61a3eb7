import { describe, expect, it } from 'vitest'
import { parseDateInput } from './parse-date-input.js'

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

  it('moves a time in the spring-forward gap forward', () => {
    const r = parseDateInput('2026-03-08 02:30:00', 'America/New_York', now)
    expect(r?.instant.toISOString()).toBe('2026-03-08T07:30:00.000Z')
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
})
