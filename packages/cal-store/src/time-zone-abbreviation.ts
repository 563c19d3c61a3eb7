import { LRUCache } from 'lru-cache'
import { zonedDateTime } from './time-zone.js'

// Intl only knows the abbreviations CLDR lists for a locale (en-US has EST but not CET, en-GB
// has CET but not EST), so the zone's usual name is looked up in the locales that use it.
const LOCALES = ['en-US', 'en-GB', 'en-IE', 'en-AU', 'en-IN', 'en-ZA', 'ja-JP']
const ABBREVIATION = /^[A-Z]{2,5}$/
const formatters = new Map<string, Intl.DateTimeFormat[]>()

function shortName(f: Intl.DateTimeFormat, instant: Date): string | undefined {
  return f.formatToParts(instant).find((p) => p.type === 'timeZoneName')?.value
}

/** `+0530`, `-03`: how the IANA data writes a zone without a letter abbreviation. */
function numericOffset(offsetNs: number): string {
  const minutes = Math.round(Math.abs(offsetNs) / 60e9)
  const p = (n: number) => String(n).padStart(2, '0')
  const hm = minutes % 60 ? `${p(Math.floor(minutes / 60))}${p(minutes % 60)}` : p(minutes / 60)
  return `${offsetNs < 0 ? '-' : '+'}${hm}`
}

/**
 * The zone's usual abbreviation at an instant (`CET`/`CEST` for Europe/Amsterdam, `EST`/`EDT`,
 * `JST`), from the CLDR short names of the locales above; `LMT` before the zone's first
 * transition (local mean time); else the numeric form the IANA data uses (`-03`, `+0545`).
 * Fixed offsets (`UTC+5:30`) are their own abbreviation.
 */
export function timezoneAbbreviation(instant: Date, zone: string): string {
  if (/^UTC([+-]|$)/.test(zone)) return zone
  const key = `${zone}\u0000${instant.getTime()}`
  let name = abbreviations.get(key)
  if (name === undefined) {
    name = lookUpAbbreviation(instant, zone)
    abbreviations.set(key, name)
  }
  return name
}

/** Abbreviations already looked up, by zone and instant (a pure function of both). */
const abbreviations = new LRUCache<string, string>({ max: 20_000 })

function lookUpAbbreviation(instant: Date, zone: string): string {
  let list = formatters.get(zone)
  if (!list) {
    list = LOCALES.map((l) => new Intl.DateTimeFormat(l, { timeZone: zone, timeZoneName: 'short' }))
    formatters.set(zone, list)
  }
  const z = zonedDateTime(instant, zone)
  // Before the first transition of a zone that has transitions: local mean time.
  if (z.getTimeZoneTransition('previous') === null && z.getTimeZoneTransition('next') !== null)
    return 'LMT'
  for (const f of list) {
    const name = shortName(f, instant)
    if (name && ABBREVIATION.test(name)) return name
  }
  return numericOffset(z.offsetNanoseconds)
}
