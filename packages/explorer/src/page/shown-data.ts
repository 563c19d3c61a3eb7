import type { SnapshotRow, TrendPoint } from './api-types.js'

/** One line of the trend chart: an ASN's values, or the reference line, one per date. */
export interface ShownSeries {
  label: string
  /** `null` where the AS is absent from that snapshot: drawn as a gap, exported as an empty cell. */
  values: (number | null)[]
}

/** Exactly what the trend chart, its CSV and its test hook show. */
export interface ShownData {
  /** Snapshot dates, oldest first (the x axis). */
  dates: string[]
  /** One per ASN in the order chosen, then the reference line last. */
  series: ShownSeries[]
}

export interface ShownInput {
  /** Every stored snapshot of the IP version. */
  snapshots: SnapshotRow[]
  /** The range the API used (`null` bound: open). */
  range: { start: string | null; end: string | null }
  trends: { asn: string; points: TrendPoint[] }[]
  normalized: boolean
}

export const REFERENCE_LABEL = 'max shell index'

/**
 * Aligns each ASN's trend on the snapshot dates of the range, so an AS missing from a snapshot
 * leaves a gap instead of a line drawn across it. The reference line is each snapshot's maximum
 * shell index (1 in normalized mode, where every value is already divided by it).
 */
export function shownData({ snapshots, range, trends, normalized }: ShownInput): ShownData {
  const inRange = (date: string) =>
    (range.start === null || date >= range.start) && (range.end === null || date <= range.end)
  const maxByDate = new Map<string, number>()
  for (const row of snapshots) if (inRange(row.date)) maxByDate.set(row.date, row.max_shell_index)
  for (const { points } of trends) {
    for (const point of points) maxByDate.set(point.date, point.max_shell_index)
  }
  const dates = [...maxByDate.keys()].sort()
  const series = trends.map(({ asn, points }) => {
    const byDate = new Map(
      points.map((p) => [p.date, normalized ? p.normalized_shell_index : p.shell_index]),
    )
    return { label: `AS${asn}`, values: dates.map((date) => byDate.get(date) ?? null) }
  })
  series.push({
    label: REFERENCE_LABEL,
    values: dates.map((date) => (normalized ? 1 : (maxByDate.get(date) ?? null))),
  })
  return { dates, series }
}

/** The points each series holds, as `[date, value]` pairs without the gaps (the test hook). */
export function heldPoints(data: ShownData): Record<string, [string, number][]> {
  const held: Record<string, [string, number][]> = {}
  for (const { label, values } of data.series) {
    held[label] = []
    values.forEach((value, i) => {
      if (value !== null) held[label]?.push([data.dates[i] as string, value])
    })
  }
  return held
}

/** CSV of what is shown: a `date` column, then one per series; gaps are empty cells. */
export function toCsv(data: ShownData): string {
  const header = ['date', ...data.series.map((s) => s.label)].join(',')
  const rows = data.dates.map((date, i) =>
    [date, ...data.series.map((s) => (s.values[i] === null ? '' : String(s.values[i])))].join(','),
  )
  return `${[header, ...rows].join('\n')}\n`
}

/** `YYYY-MM-DD` → seconds since the epoch at 00:00 UTC (uPlot's time unit). */
export const dateToSeconds = (date: string): number => Date.parse(`${date}T00:00:00Z`) / 1000

/** Seconds since the epoch → `YYYY-MM-DD` (UTC). */
export const secondsToDate = (seconds: number): string =>
  new Date(seconds * 1000).toISOString().slice(0, 10)
