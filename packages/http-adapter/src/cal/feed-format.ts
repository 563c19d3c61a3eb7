/**
 * Whether an events list is answered as iCalendar: `?format=ics` (subscription URLs, which
 * cannot send headers; `webcal://` clients fetch the same URL), or an `Accept` that ranks
 * `text/calendar` above JSON. Equal weights keep JSON, the API's own type, so `*\/*` and
 * browsers' lists get JSON; `format=json` forces JSON whatever the header.
 */
export function wantsCalendar(format: 'ics' | 'json' | undefined, accept: string | null): boolean {
  if (format !== undefined) return format === 'ics'
  if (!accept) return false
  return weight(accept, 'text', 'calendar') > weight(accept, 'application', 'json')
}

/** The q-value `accept` gives `type/subtype` by its most specific matching range (RFC 9110 §12.5.1). */
function weight(accept: string, type: string, subtype: string): number {
  let best = -1
  let specificity = -1
  for (const range of accept.split(',')) {
    const [media = '', ...params] = range.split(';').map((p) => p.trim().toLowerCase())
    const [t, s] = media.split('/')
    const level =
      t === type && s === subtype
        ? 2
        : t === type && s === '*'
          ? 1
          : t === '*' && s === '*'
            ? 0
            : -1
    if (level < 0 || level < specificity) continue
    const qParam = params.find((p) => p.startsWith('q='))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    // A malformed weight makes the range unusable, not a preference.
    if (!Number.isFinite(q) || q < 0 || q > 1 || qParam === 'q=') continue
    specificity = level
    best = q
  }
  return best
}
