import type { DataBreak } from './api-types.js'
import type { IpVersion } from './view-state.js'

const DATE = /^\d{4}-\d{2}-\d{2}$/

/**
 * The methodology breaks of `/api/summary` (`breaks.items`), when the service has them; an
 * older service has no `breaks` member, and anything not of the documented shape is skipped
 * rather than drawn, so the chart never depends on it.
 */
export function breaksOf(summary: unknown): DataBreak[] {
  const items = (summary as { breaks?: { items?: unknown } } | null)?.breaks?.items
  if (!Array.isArray(items)) return []
  const breaks: DataBreak[] = []
  for (const item of items as Record<string, unknown>[]) {
    if (typeof item !== 'object' || item === null) continue
    const { date, what, source, ip_version } = item
    if (typeof date !== 'string' || !DATE.test(date)) continue
    if (typeof what !== 'string' || typeof source !== 'string') continue
    const version = ip_version === 'ipv4' || ip_version === 'ipv6' ? ip_version : undefined
    if (ip_version !== undefined && ip_version !== null && version === undefined) continue
    breaks.push({ date, what, source, ...(version ? { ip_version: version } : {}) })
  }
  return breaks.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
}

/**
 * The breaks a chart of `dates` (sorted) for `versions` marks: a break of a version shown (or
 * of every version), inside the dates drawn. Outside them there is nothing it could explain.
 */
export function breaksShown(
  breaks: DataBreak[],
  versions: IpVersion[],
  dates: string[],
): DataBreak[] {
  const first = dates[0]
  const last = dates.at(-1)
  if (first === undefined || last === undefined) return []
  return breaks.filter(
    (b) =>
      b.date >= first &&
      b.date <= last &&
      (b.ip_version === undefined || versions.includes(b.ip_version)),
  )
}

/** The line under the chart for one break: `2018-01-01 (IPv4): what changed — source`. */
export function breakText(b: DataBreak): string {
  const version = b.ip_version ? ` (${b.ip_version === 'ipv4' ? 'IPv4' : 'IPv6'})` : ''
  return `${b.date}${version}: ${b.what} — ${b.source}`
}
