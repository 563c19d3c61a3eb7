import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { wantsCalendar } from './feed-format.js'

describe('wantsCalendar', () => {
  it('follows format= first, whatever Accept says', () => {
    expect(wantsCalendar('ics', 'application/json')).toBe(true)
    expect(wantsCalendar('json', 'text/calendar')).toBe(false)
  })

  it('picks text/calendar only when Accept ranks it above JSON', () => {
    expect(wantsCalendar(undefined, null)).toBe(false)
    expect(wantsCalendar(undefined, '')).toBe(false)
    expect(wantsCalendar(undefined, '*/*')).toBe(false)
    expect(wantsCalendar(undefined, 'text/calendar')).toBe(true)
    expect(wantsCalendar(undefined, 'TEXT/Calendar; charset=utf-8')).toBe(true)
    expect(wantsCalendar(undefined, 'text/*')).toBe(true)
    expect(wantsCalendar(undefined, 'text/calendar, application/json')).toBe(false)
    expect(wantsCalendar(undefined, 'text/calendar, application/json;q=0.5')).toBe(true)
    expect(wantsCalendar(undefined, 'text/calendar;q=0, */*')).toBe(false)
    expect(wantsCalendar(undefined, 'text/calendar;q=0.9, */*;q=0.1')).toBe(true)
    expect(wantsCalendar(undefined, 'text/calendar;q=abc')).toBe(false)
    expect(wantsCalendar(undefined, 'text/html,application/xhtml+xml,*/*;q=0.8')).toBe(false)
  })

  it('never throws and agrees with the q-values of two plain ranges', () => {
    const q = fc.constantFrom(0, 0.001, 0.5, 0.999, 1)
    fc.assert(
      fc.property(q, q, fc.boolean(), (qc, qj, calendarFirst) => {
        const c = `text/calendar;q=${qc}`
        const j = `application/json;q=${qj}`
        const header = calendarFirst ? `${c}, ${j}` : `${j}, ${c}`
        expect(wantsCalendar(undefined, header)).toBe(qc > qj)
      }),
    )
    fc.assert(
      fc.property(fc.string(), (header) => {
        expect(typeof wantsCalendar(undefined, header)).toBe('boolean')
      }),
    )
  })
})
