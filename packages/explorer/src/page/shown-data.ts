import type { SnapshotRow, TrendPoint } from './api-types.js'
import type { IpVersion } from './view-state.js'

/** One line of the trend chart: an ASN's values, or the reference line, one per date. */
export interface ShownSeries {
  /** The series' key: the CSV column and the test hook (`AS3356`; `AS3356 IPv6` in both view). */
  label: string
  /** What the legend says (`AS3356 Level 3 Parent, LLC`; `… (IPv6)` in both view). */
  legend: string
  /**
   * `null` where the AS is absent from that snapshot: drawn as a gap, exported as an empty cell.
   * `undefined` on a date with no snapshot of this series' IP version at all (the other
   * version's date, in the both view): the line goes on across it; an empty cell too.
   */
  values: (number | null | undefined)[]
  /** The snapshots' maximum shell index, drawn dashed grey. */
  reference?: boolean
  /** Set in the IPv4 + IPv6 view: which version (IPv6 is drawn dashed). */
  version?: IpVersion
  /** The ASN's place in the chosen list: its colour, the same for both versions. */
  colour?: number
}

/** Exactly what the trend chart, its CSV and its test hook show. */
export interface ShownData {
  /** Snapshot dates, oldest first (the x axis). */
  dates: string[]
  /** One per ASN in the order chosen, then the reference line last. */
  series: ShownSeries[]
}

type Trends = { asn: string; points: TrendPoint[] }[]

export interface ShownInput {
  /** Every stored snapshot of the IP version. */
  snapshots: SnapshotRow[]
  /** The range the API used (`null` bound: open). */
  range: { start: string | null; end: string | null }
  trends: Trends
  normalized: boolean
  /** The legend of an ASN (default `AS3356`). */
  legend?: (asn: string) => string
}

/** The input of {@link shownVersions}: each version's snapshots and trends. */
export interface VersionsInput extends Omit<ShownInput, 'snapshots' | 'trends'> {
  versions: { version: IpVersion; snapshots: SnapshotRow[]; trends: Trends }[]
}

export const REFERENCE_LABEL = 'max shell index'

const VERSION_NAME: Record<IpVersion, string> = { ipv4: 'IPv4', ipv6: 'IPv6' }

/**
 * Aligns each ASN's trend on the snapshot dates of the range, so an AS missing from a snapshot
 * leaves a gap instead of a line drawn across it. The reference line is each snapshot's maximum
 * shell index (1 in normalized mode, where every value is already divided by it).
 */
export function shownData({ snapshots, trends, ...rest }: ShownInput): ShownData {
  return shownVersions({ ...rest, versions: [{ version: 'ipv4', snapshots, trends }] })
}

/**
 * Both IP versions of the ASNs on one time axis (the union of both versions' snapshot dates):
 * per ASN its IPv4 then its IPv6 series, then each version's reference line. Each series is
 * aligned on its own version's dates as in {@link shownData}. With one version given, the
 * series are untagged, exactly as {@link shownData}'s.
 */
export function shownVersions(input: VersionsInput): ShownData {
  const { range, normalized, versions } = input
  const tagged = versions.length > 1
  const legend = input.legend ?? ((asn: string) => `AS${asn}`)
  const inRange = (date: string) =>
    (range.start === null || date >= range.start) && (range.end === null || date <= range.end)
  const maxima = versions.map(({ snapshots, trends }) => {
    const maxByDate = new Map<string, number>()
    for (const row of snapshots) if (inRange(row.date)) maxByDate.set(row.date, row.max_shell_index)
    for (const { points } of trends) {
      for (const point of points) maxByDate.set(point.date, point.max_shell_index)
    }
    return maxByDate
  })
  const dates = [...new Set(maxima.flatMap((m) => [...m.keys()]))].sort()
  const suffix = (version: IpVersion) => (tagged ? ` ${VERSION_NAME[version]}` : '')
  const tag = (version: IpVersion) => (tagged ? ` (${VERSION_NAME[version]})` : '')
  const series: ShownSeries[] = []
  const order = [...new Set(versions.flatMap((v) => v.trends.map((t) => t.asn)))]
  order.forEach((asn, colour) => {
    versions.forEach(({ version, trends }, v) => {
      const points = trends.find((t) => t.asn === asn)?.points
      if (points === undefined) return
      const held = maxima[v] as Map<string, number>
      const byDate = new Map(
        points.map((p) => [p.date, normalized ? p.normalized_shell_index : p.shell_index]),
      )
      series.push({
        label: `AS${asn}${suffix(version)}`,
        legend: `${legend(asn)}${tag(version)}`,
        values: dates.map((date) => (held.has(date) ? (byDate.get(date) ?? null) : undefined)),
        ...(tagged ? { version } : {}),
        colour,
      })
    })
  })
  versions.forEach(({ version }, v) => {
    const held = maxima[v] as Map<string, number>
    series.push({
      label: `${REFERENCE_LABEL}${suffix(version)}`,
      legend: `${REFERENCE_LABEL}${tag(version)}`,
      values: dates.map((date) => (held.has(date) ? (normalized ? 1 : held.get(date)) : undefined)),
      reference: true,
      ...(tagged ? { version } : {}),
    })
  })
  return { dates, series }
}

/** The points each series holds, as `[date, value]` pairs without the gaps (the test hook). */
export function heldPoints(data: ShownData): Record<string, [string, number][]> {
  const held: Record<string, [string, number][]> = {}
  for (const { label, values } of data.series) {
    held[label] = []
    values.forEach((value, i) => {
      if (value !== null && value !== undefined) held[label]?.push([data.dates[i] as string, value])
    })
  }
  return held
}

/**
 * CSV of what is shown: a `date` column, then one per series keyed by its label (`AS3356`,
 * never the name, so columns stay machine-readable); gaps are empty cells.
 */
export function toCsv(data: ShownData): string {
  const header = ['date', ...data.series.map((s) => s.label)].join(',')
  const rows = data.dates.map((date, i) =>
    [date, ...data.series.map((s) => (s.values[i] == null ? '' : String(s.values[i])))].join(','),
  )
  return `${[header, ...rows].join('\n')}\n`
}

/** `YYYY-MM-DD` → seconds since the epoch at 00:00 UTC (uPlot's time unit). */
export const dateToSeconds = (date: string): number => Date.parse(`${date}T00:00:00Z`) / 1000

/** Seconds since the epoch → `YYYY-MM-DD` (UTC). */
export const secondsToDate = (seconds: number): string =>
  new Date(seconds * 1000).toISOString().slice(0, 10)
