// Draws what shown-data computed onto the page's two charts, and writes their test hooks
// (`data-series`, `data-points`, `data-breaks`: what the charts hold, not what the API said).
import type uPlot from 'uplot'
import type { DataBreak, SnapshotRow, SnapshotsResponse } from './api-types.js'
import { dateToSeconds, heldPoints, type ShownData } from './shown-data.js'
import { drawTimeChart, type LineSpec } from './time-chart.js'
import { type IpVersion, type ViewVersion, versionsOf } from './view-state.js'

/** IPv6 lines are dashed, IPv6 reference lines dotted: the two versions never look alike. */
const IPV6_DASH = [10, 5]
const IPV6_REFERENCE_DASH = [2, 4]

export const chartHeight = () => (window.innerWidth < 600 ? 260 : 360)

export function drawTrend(
  container: HTMLElement,
  data: ShownData,
  normalized: boolean,
  breaks: DataBreak[],
): uPlot {
  const plot = drawTimeChart(container, {
    xs: data.dates.map(dateToSeconds),
    lines: data.series.map(
      (s): LineSpec => ({
        label: s.legend,
        values: s.values as (number | null)[],
        reference: s.reference,
        colour: s.colour,
        dash: s.version === 'ipv6' ? (s.reference ? IPV6_REFERENCE_DASH : IPV6_DASH) : undefined,
      }),
    ),
    axes: { y: normalized ? 'normalized shell index' : 'shell index' },
    height: chartHeight(),
    marks: breaks.map((b) => ({ x: dateToSeconds(b.date), label: b.date })),
  })
  container.dataset.series = JSON.stringify(data.series.map((s) => s.label))
  container.dataset.points = JSON.stringify(heldPoints(data))
  container.dataset.breaks = JSON.stringify(breaks.map((b) => b.date))
  container.dataset.state = 'ready'
  return plot
}

const NAMES: Record<IpVersion, string> = { ipv4: 'IPv4', ipv6: 'IPv6' }

/** The snapshot panel: kmax and AS count over time, per version shown (IPv6 dashed). */
export function drawSnapshots(
  container: HTMLElement,
  all: SnapshotsResponse,
  view: ViewVersion,
): uPlot {
  const versions = versionsOf(view)
  const tag = (v: IpVersion) => (versions.length > 1 ? ` ${NAMES[v]}` : '')
  const rowsOf = (v: IpVersion): SnapshotRow[] => all[v] ?? []
  const dates = [...new Set(versions.flatMap((v) => rowsOf(v).map((r) => r.date)))].sort()
  const lines: LineSpec[] = []
  for (const v of versions) {
    const byDate = new Map(rowsOf(v).map((r) => [r.date, r]))
    // undefined: no snapshot of this version that day, so the line goes on across it.
    const column = (pick: (r: SnapshotRow) => number) =>
      dates.map((d) => {
        const row = byDate.get(d)
        return row ? pick(row) : undefined
      }) as (number | null)[]
    const dash = v === 'ipv6' && versions.length > 1 ? IPV6_DASH : undefined
    lines.push(
      {
        label: `max shell index (kmax)${tag(v)}`,
        values: column((r) => r.max_shell_index),
        colour: 0,
        dash,
      },
      {
        label: `AS count${tag(v)}`,
        values: column((r) => r.unique_asns),
        scale: 'asns',
        colour: 1,
        dash,
      },
    )
  }
  const plot = drawTimeChart(container, {
    xs: dates.map(dateToSeconds),
    lines,
    axes: { y: 'max shell index', asns: 'AS count' },
    height: Math.round(chartHeight() * 0.75),
  })
  container.dataset.points = JSON.stringify(
    versions.length > 1
      ? versions.flatMap((v) => rowsOf(v).map((r) => [r.date, v, r.max_shell_index, r.unique_asns]))
      : rowsOf(versions[0] as IpVersion).map((r) => [r.date, r.max_shell_index, r.unique_asns]),
  )
  container.dataset.state = 'ready'
  return plot
}
