import { RecurrenceError } from './recurrence-error.js'
import { formatRule, parseRule, type RuleParts } from './rule-parts.js'
import { formatIcal, formatWall, parseWallTime, type ZoneClock } from './wall-clock.js'

export const MAX_RULES = 10
export const MAX_DATES = 1000

/** The checked recurrence of a series, in wall seconds. */
export interface CheckedRecurrence {
  rules: { parts: RuleParts; text: string; untilWall?: number }[]
  rdates: number[] // sorted, distinct wall seconds
  exdates: number[]
  normalised: { rules: string[]; rdates?: string[]; exdates?: string[] }
}

const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((s) => typeof s === 'string')

/**
 * Checks the shape and every refusal of the spec that needs no expansion; UNTIL becomes UTC
 * (timed series) or a date (all-day), as RFC 5545 wants beside a zoned DTSTART.
 */
export function checkRecurrenceInput(
  input: unknown,
  startWall: number,
  allDay: boolean,
  clock: ZoneClock,
): CheckedRecurrence {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new RecurrenceError('recurrence must be an object with rules, rdates and exdates')
  for (const key of Object.keys(input))
    if (key !== 'rules' && key !== 'rdates' && key !== 'exdates')
      throw new RecurrenceError(`unknown recurrence field ${key}`)
  const { rules, rdates = [], exdates = [] } = input as Record<string, unknown>
  if (!isStringArray(rules)) throw new RecurrenceError('rules must be an array of strings')
  if (rules.length < 1 || rules.length > MAX_RULES)
    throw new RecurrenceError(`rules must hold 1 to ${MAX_RULES} rules`)
  for (const [name, list] of [
    ['rdates', rdates],
    ['exdates', exdates],
  ] as const)
    if (list !== null && !isStringArray(list))
      throw new RecurrenceError(`${name} must be an array of strings`)
  const rd = (rdates ?? []) as string[]
  const ex = (exdates ?? []) as string[]
  if (rd.length + ex.length > MAX_DATES)
    throw new RecurrenceError(`rdates and exdates may hold at most ${MAX_DATES} dates together`)

  const startSecond = startWall % 60
  const checkedRules = rules.map((text) => {
    const parts = parseRule(text)
    if (allDay && (parts.freq === 'HOURLY' || parts.byHour || parts.byMinute || parts.bySecond))
      throw new RecurrenceError(
        `rule "${text}": an all-day series recurs on dates: no FREQ=HOURLY, BYHOUR, BYMINUTE or BYSECOND`,
      )
    if (parts.bySecond && parts.bySecond[0] !== startSecond)
      throw new RecurrenceError(
        `rule "${text}": BYSECOND must be the start's second (${startSecond}): two occurrences would share a wall-clock minute (an occurrence is keyed by its minute)`,
      )
    let untilWall: number | undefined
    if (parts.until !== undefined) {
      untilWall = untilToWall(parts.until, allDay, clock)
      if (untilWall === undefined)
        throw new RecurrenceError(
          `rule "${text}": UNTIL ${parts.until} is not a date in 1000..9999`,
        )
      if (untilWall < startWall)
        throw new RecurrenceError(`rule "${text}": UNTIL is before the series' start`)
      if (allDay) parts.until = formatIcal(untilWall, true)
      else if (!parts.until.endsWith('Z')) parts.until = utcText(clock.instantMs(untilWall))
    }
    return { parts, text: formatRule(parts), untilWall }
  })

  const dates = (name: string, list: string[]) => {
    const walls = list.map((text) => {
      const wall = parseWallTime(text, allDay)
      if (wall === undefined)
        throw new RecurrenceError(
          `${name} entry ${JSON.stringify(text)} is not a date-time YYYY-MM-DD HH:MM:SS${allDay ? ' or date YYYY-MM-DD' : ''} between 1000-01-01 and 9999-12-31`,
        )
      if (allDay && wall % 86400 !== 0)
        throw new RecurrenceError(`${name} entry ${text}: an all-day series takes dates (00:00:00)`)
      if (wall < startWall)
        throw new RecurrenceError(`${name} entry ${text} is before the series' start`)
      return wall
    })
    return [...new Set(walls)].sort((a, b) => a - b)
  }
  const rdWalls = dates('rdates', rd)
  const exWalls = dates('exdates', ex)
  return {
    rules: checkedRules,
    rdates: rdWalls,
    exdates: exWalls,
    normalised: {
      rules: checkedRules.map((r) => r.text),
      ...(rdWalls.length ? { rdates: rdWalls.map(formatWall) } : {}),
      ...(exWalls.length ? { exdates: exWalls.map(formatWall) } : {}),
    },
  }
}

function utcText(ms: number): string {
  return `${formatIcal(Math.floor(ms / 1000), false)}Z`
}

/**
 * The last wall second UNTIL lets through: `…Z` is an instant (the last wall time at or before
 * it), a floating date-time is wall time, a date is the end of that day (all-day: the date).
 */
function untilToWall(until: string, allDay: boolean, clock: ZoneClock): number | undefined {
  const iso = `${until.slice(0, 4)}-${until.slice(4, 6)}-${until.slice(6, 8)}`
  if (until.length === 8) {
    const day = parseWallTime(iso, true)
    return day === undefined ? undefined : allDay ? day : day + 86399
  }
  const time = `${until.slice(9, 11)}:${until.slice(11, 13)}:${until.slice(13, 15)}`
  const wall = parseWallTime(`${iso} ${time}`, false)
  if (wall === undefined) return undefined
  if (!until.endsWith('Z')) return allDay ? wall - (wall % 86400) : wall
  const last = clock.lastWallAtOrBefore(wall * 1000)
  return allDay ? last - (((last % 86400) + 86400) % 86400) : last
}
