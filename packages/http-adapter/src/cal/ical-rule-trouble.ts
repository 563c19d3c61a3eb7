/**
 * Rules that ical.js 2.2.1 (the reference client the spec names, and libical's port) expands
 * differently from RFC 5545, which the server follows. The feed writes the occurrences of such
 * a series one by one instead of the rule. Found against the recurrence core
 * (`@cal/store`'s `recurrence-oracle.test.ts` lists each with an example) and by this
 * package's `series-ical.property.test.ts`.
 */
export function icalMisexpands(
  rule: string,
  series: { startDay: number; exdates: boolean },
): boolean {
  const parts = new Map(rule.split(';').map((p) => p.split('=') as [string, string]))
  const freq = parts.get('FREQ')
  const has = (name: string) => parts.has(name)
  const list = (name: string) => (parts.get(name) ?? '').split(',').filter(Boolean)
  // BYSETPOS: right only over the BYDAY set of a MONTHLY rule (it picks wrong with BYMONTHDAY,
  // applies per month in YEARLY rules, ignores BYHOUR's times, and overshoots WEEKLY UNTIL).
  if (has('BYSETPOS') && (freq !== 'MONTHLY' || has('BYMONTHDAY') || has('BYHOUR'))) return true
  // MONTHLY with BYMONTH: skips and reorders occurrences.
  if (freq === 'MONTHLY' && has('BYMONTH')) return true
  // BYHOUR: expanded in HOURLY rules, wrong days in MONTHLY ones, miscounted under COUNT, and an
  // EXDATE on one of its times is ignored.
  if (has('BYHOUR') && (freq === 'HOURLY' || freq === 'MONTHLY' || has('COUNT') || series.exdates))
    return true
  // Month days past the 28th roll over into the next month; negative ones are counted from the
  // wrong month's end (and make DAILY rules run out of memory).
  if (list('BYMONTHDAY').some((d) => Number(d) < 0 || Number(d) > 28)) return true
  const implicitDay = !has('BYMONTHDAY') && !has('BYDAY') && !has('BYYEARDAY') && !has('BYWEEKNO')
  if ((freq === 'MONTHLY' || freq === 'YEARLY') && implicitDay && series.startDay > 28) return true
  // YEARLY BYDAY ordinals beyond ±2 are lost.
  if (freq === 'YEARLY' && list('BYDAY').some((d) => Math.abs(Number.parseInt(d, 10)) > 2))
    return true
  // Not checked against ical.js at all: written out rather than trusted.
  return has('BYWEEKNO') || has('BYYEARDAY')
}
