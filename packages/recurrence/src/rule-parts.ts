import { RecurrenceError } from './recurrence-error.js'

// RFC 5545 §3.3.10, validated here rather than by the expansion library: its parser is lenient
// (unknown parts, out-of-range numbers), and a refusal must name what is wrong.

export type Freq = 'YEARLY' | 'MONTHLY' | 'WEEKLY' | 'DAILY' | 'HOURLY'
export const FREQS: readonly Freq[] = ['YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY', 'HOURLY']
export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const
export type Weekday = (typeof WEEKDAYS)[number]

export interface ByDay {
  ordinal: number // 0: every such weekday of the period
  day: Weekday
}

/** One parsed, validated rule. `until` is still text: its meaning needs the series' zone. */
export interface RuleParts {
  freq: Freq
  interval: number
  count?: number
  until?: string
  bySecond?: number[]
  byMinute?: number[]
  byHour?: number[]
  byDay?: ByDay[]
  byMonthDay?: number[]
  byYearDay?: number[]
  byWeekNo?: number[]
  byMonth?: number[]
  bySetPos?: number[]
  wkst?: Weekday
}

const PART_ORDER = [
  'FREQ',
  'INTERVAL',
  'COUNT',
  'UNTIL',
  'BYSECOND',
  'BYMINUTE',
  'BYHOUR',
  'BYDAY',
  'BYMONTHDAY',
  'BYYEARDAY',
  'BYWEEKNO',
  'BYMONTH',
  'BYSETPOS',
  'WKST',
] as const

const INTEGER = /^[+-]?\d{1,10}$/
const UNTIL_FORM = /^\d{8}(T\d{6}Z?)?$/

function fail(rule: string, why: string): never {
  throw new RecurrenceError(`rule "${rule}": ${why}`)
}

function intList(
  rule: string,
  name: string,
  value: string,
  min: number,
  max: number,
  signed: boolean,
) {
  const out: number[] = []
  for (const item of value.split(',')) {
    if (!INTEGER.test(item)) fail(rule, `${name} must be a list of integers`)
    const n = Number(item)
    const abs = Math.abs(n)
    if ((n < 0 || item.startsWith('+')) && !signed) fail(rule, `${name} takes no sign`)
    if (abs < min || abs > max)
      fail(rule, `${name} values must lie in ${signed ? `±${min}..${max}` : `${min}..${max}`}`)
    if (out.includes(n)) fail(rule, `${name} repeats ${n}`)
    out.push(n)
  }
  return out
}

function positive(rule: string, name: string, value: string): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) < 1 || Number(value) > 2 ** 31 - 1)
    fail(rule, `${name} must be an integer from 1 to ${2 ** 31 - 1}`)
  return Number(value)
}

/** Parses and checks one RRULE value (without the `RRULE:` prefix), upper-cased. */
export function parseRule(text: string): RuleParts {
  const rule = text.trim().toUpperCase()
  if (rule === '') throw new RecurrenceError('a rule is empty')
  if (rule.startsWith('RRULE:')) fail(rule, 'give the value without the RRULE: prefix')
  const seen = new Map<string, string>()
  for (const part of rule.split(';')) {
    const eq = part.indexOf('=')
    if (eq <= 0 || eq === part.length - 1) fail(rule, `"${part}" is not NAME=VALUE`)
    const name = part.slice(0, eq)
    if (!(PART_ORDER as readonly string[]).includes(name)) fail(rule, `unknown part ${name}`)
    if (seen.has(name)) fail(rule, `${name} is given twice`)
    seen.set(name, part.slice(eq + 1))
  }
  const freq = seen.get('FREQ')
  if (freq === undefined) fail(rule, 'FREQ is required')
  if (freq === 'SECONDLY' || freq === 'MINUTELY')
    fail(rule, `FREQ=${freq} is not accepted (occurrences are at least an hour apart)`)
  if (!(FREQS as readonly string[]).includes(freq)) fail(rule, `unknown FREQ ${freq}`)
  const parts: RuleParts = { freq: freq as Freq, interval: 1 }
  for (const [name, value] of seen) {
    switch (name) {
      case 'INTERVAL':
        parts.interval = positive(rule, name, value)
        break
      case 'COUNT':
        parts.count = positive(rule, name, value)
        break
      case 'UNTIL':
        if (!UNTIL_FORM.test(value)) fail(rule, 'UNTIL must be YYYYMMDD or YYYYMMDDTHHMMSS[Z]')
        parts.until = value
        break
      case 'BYSECOND':
        parts.bySecond = intList(rule, name, value, 0, 59, false)
        break
      case 'BYMINUTE':
        parts.byMinute = intList(rule, name, value, 0, 59, false)
        break
      case 'BYHOUR':
        parts.byHour = intList(rule, name, value, 0, 23, false)
        break
      case 'BYDAY':
        parts.byDay = value.split(',').map((item) => {
          const m = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/.exec(item)
          if (!m) fail(rule, `BYDAY value ${item} is not [±n]MO..SU`)
          const ordinal = m[1] === undefined ? 0 : Number(m[1])
          if (m[1] !== undefined && (ordinal === 0 || Math.abs(ordinal) > 53))
            fail(rule, `BYDAY ordinal in ${item} must lie in ±1..53`)
          return { ordinal, day: m[2] as Weekday }
        })
        if (new Set(value.split(',').map((v) => v.replace(/^\+/, ''))).size !== parts.byDay.length)
          fail(rule, 'BYDAY repeats a value')
        break
      case 'BYMONTHDAY':
        parts.byMonthDay = intList(rule, name, value, 1, 31, true)
        break
      case 'BYYEARDAY':
        parts.byYearDay = intList(rule, name, value, 1, 366, true)
        break
      case 'BYWEEKNO':
        parts.byWeekNo = intList(rule, name, value, 1, 53, true)
        break
      case 'BYMONTH':
        parts.byMonth = intList(rule, name, value, 1, 12, false)
        break
      case 'BYSETPOS':
        parts.bySetPos = intList(rule, name, value, 1, 366, true)
        break
      case 'WKST':
        if (!(WEEKDAYS as readonly string[]).includes(value))
          fail(rule, `WKST ${value} is not MO..SU`)
        parts.wkst = value as Weekday
        break
    }
  }
  checkCombination(rule, parts)
  return parts
}

/** The RFC 5545 table of which BYxxx parts each FREQ takes, and the other joint rules. */
function checkCombination(rule: string, p: RuleParts): void {
  if (p.count !== undefined && p.until !== undefined)
    fail(rule, 'COUNT and UNTIL exclude each other')
  if (p.byWeekNo && p.freq !== 'YEARLY') fail(rule, 'BYWEEKNO is only for FREQ=YEARLY')
  if (p.byYearDay && (p.freq === 'MONTHLY' || p.freq === 'WEEKLY' || p.freq === 'DAILY'))
    fail(rule, `BYYEARDAY does not go with FREQ=${p.freq}`)
  if (p.byMonthDay && p.freq === 'WEEKLY') fail(rule, 'BYMONTHDAY does not go with FREQ=WEEKLY')
  const ordinals = p.byDay?.some((d) => d.ordinal !== 0)
  if (ordinals && p.freq !== 'MONTHLY' && p.freq !== 'YEARLY')
    fail(rule, `BYDAY ordinals (like 2MO) only go with FREQ=MONTHLY or YEARLY`)
  // rrule-temporal 2.2.8 drops the plain days of such a list (YEARLY;BYDAY=WE,1TH gives the
  // first Thursday only): refused rather than answered wrong.
  if (ordinals && p.byDay?.some((d) => d.ordinal === 0))
    fail(
      rule,
      'BYDAY mixes weekdays with and without ordinals (like WE,1TH): give them as two rules',
    )
  // ical.js refuses this pair in MONTHLY rules ("Malformed values in BYDAY combined with
  // BYMONTHDAY") and misses occurrences of it in YEARLY ones, so a feed carrying it would
  // break or mislead calendar clients.
  if (ordinals && p.byMonthDay)
    fail(
      rule,
      'BYDAY ordinals (like 1MO) with BYMONTHDAY are refused: calendar clients reject them',
    )
  if (ordinals && p.freq === 'YEARLY' && p.byWeekNo)
    fail(rule, 'BYDAY ordinals do not go with BYWEEKNO')
  // rrule-temporal answers such rules differently depending on the window asked (a property
  // test found `BYDAY=53MO;BYYEARDAY=1` giving days that are neither).
  if (ordinals && p.byYearDay) fail(rule, 'BYDAY ordinals do not go with BYYEARDAY')
  // rrule-temporal 2.2.8 answers BYDAY=53FR with the first Friday of every year; -53 and
  // 1..52 come out right (checked against plain date arithmetic in the tests).
  if (p.freq === 'YEARLY' && p.byDay?.some((d) => d.ordinal === 53))
    fail(rule, 'BYDAY=53.. is refused: the RRULE library gets it wrong (-53 and 1..52 work)')
  if (ordinals && p.freq === 'MONTHLY' && p.byDay?.some((d) => Math.abs(d.ordinal) > 5))
    fail(rule, 'BYDAY ordinals with FREQ=MONTHLY must lie in ±1..5')
  // rrule-temporal 2.2.8 answers this pair differently by query window; no calendar needs it.
  if (p.byWeekNo && p.byYearDay) fail(rule, 'BYWEEKNO and BYYEARDAY do not go together')
  if (p.freq === 'YEARLY' && p.byMonthDay && !p.byMonth && !p.byYearDay && !p.byWeekNo)
    fail(
      rule,
      "FREQ=YEARLY with BYMONTHDAY needs BYMONTH: implementations disagree on it (every month, or the start's month only), so calendars would show other dates than this list",
    )
  if (p.bySetPos) {
    const others = [
      p.bySecond,
      p.byMinute,
      p.byHour,
      p.byDay,
      p.byMonthDay,
      p.byYearDay,
      p.byWeekNo,
      p.byMonth,
    ]
    if (!others.some((o) => o !== undefined)) fail(rule, 'BYSETPOS needs another BYxxx part')
  }
  if (p.bySecond && p.bySecond.length > 1)
    fail(
      rule,
      'BYSECOND with several values would put two occurrences in one wall-clock minute (an occurrence is keyed by its minute)',
    )
}

/** The rule text in canonical part order (FREQ first), as stored and written to feeds. */
export function formatRule(p: RuleParts): string {
  const out = [`FREQ=${p.freq}`]
  if (p.interval !== 1) out.push(`INTERVAL=${p.interval}`)
  if (p.count !== undefined) out.push(`COUNT=${p.count}`)
  if (p.until !== undefined) out.push(`UNTIL=${p.until}`)
  const list = (name: string, v?: number[]) => v && out.push(`${name}=${v.join(',')}`)
  list('BYSECOND', p.bySecond)
  list('BYMINUTE', p.byMinute)
  list('BYHOUR', p.byHour)
  if (p.byDay) out.push(`BYDAY=${p.byDay.map((d) => `${d.ordinal || ''}${d.day}`).join(',')}`)
  list('BYMONTHDAY', p.byMonthDay)
  list('BYYEARDAY', p.byYearDay)
  list('BYWEEKNO', p.byWeekNo)
  list('BYMONTH', p.byMonth)
  list('BYSETPOS', p.bySetPos)
  if (p.wkst) out.push(`WKST=${p.wkst}`)
  return out.join(';')
}
