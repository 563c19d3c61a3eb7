import uPlot from 'uplot'
import { secondsToDate } from './shown-data.js'

/** Colour-blind-safe palette (Okabe–Ito, then Tol's muted), one per ASN. */
const PALETTE = [
  '#0072b2',
  '#d55e00',
  '#009e73',
  '#cc79a7',
  '#e69f00',
  '#56b4e9',
  '#882255',
  '#117733',
  '#999933',
  '#332288',
]

export interface LineSpec {
  label: string
  values: (number | null)[]
  /** Reference lines are dashed grey. */
  reference?: boolean
  /** uPlot scale key; a second key gets its own axis on the right. */
  scale?: string
}

export interface TimeChartSpec {
  xs: number[]
  lines: LineSpec[]
  /** Axis labels by scale key (default scale: `y`). */
  axes: Record<string, string>
  height: number
}

/**
 * One uPlot time-series chart sized to its container. Null values stay gaps (no `spanGaps`);
 * every point is drawn, since snapshots are sparse; the live legend shows the hovered date and values.
 */
export function drawTimeChart(container: HTMLElement, spec: TimeChartSpec): uPlot {
  const scales = Object.keys(spec.axes)
  const options: uPlot.Options = {
    width: Math.max(container.clientWidth, 280),
    height: spec.height,
    scales: { x: { time: true } },
    cursor: { focus: { prox: 16 } },
    series: [
      { label: 'date', value: (_u, v) => (v == null ? '–' : secondsToDate(v)) },
      ...spec.lines.map((line, i) => ({
        label: line.label,
        scale: line.scale ?? 'y',
        stroke: line.reference ? '#6b6b6b' : (PALETTE[i % PALETTE.length] as string),
        width: line.reference ? 1.5 : 2,
        dash: line.reference ? [6, 4] : undefined,
        spanGaps: false,
        points: { show: true, size: 6 },
      })),
    ],
    axes: [
      {},
      ...scales.map((scale, i) => ({
        scale,
        label: spec.axes[scale],
        side: i === 0 ? 3 : 1,
        grid: { show: i === 0 },
        size: 60,
      })),
    ],
  }
  container.replaceChildren()
  return new uPlot(options, [spec.xs, ...spec.lines.map((l) => l.values)], container)
}

/** Keeps a chart as wide as its container (phone widths included). */
export function followWidth(container: HTMLElement, plot: () => uPlot | undefined): void {
  new ResizeObserver(() => {
    const current = plot()
    if (current)
      current.setSize({ width: Math.max(container.clientWidth, 280), height: current.height })
  }).observe(container)
}
