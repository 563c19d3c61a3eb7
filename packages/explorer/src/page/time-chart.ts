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
  /** Palette index (default: the line's position), so one AS keeps its colour across versions. */
  colour?: number
  /** Dash pattern; a dashed reference line gets a dotted one. */
  dash?: number[]
}

/** A vertical marked line across the plot (a data break), at `x` seconds. */
export interface ChartMark {
  x: number
  label: string
}

export interface TimeChartSpec {
  xs: number[]
  lines: LineSpec[]
  /** Axis labels by scale key (default scale: `y`). */
  axes: Record<string, string>
  height: number
  marks?: ChartMark[]
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
        stroke: line.reference
          ? '#6b6b6b'
          : (PALETTE[(line.colour ?? i) % PALETTE.length] as string),
        width: line.reference ? 1.5 : 2,
        dash: line.dash ?? (line.reference ? [6, 4] : undefined),
        spanGaps: false,
        points: { show: true, size: 6 },
      })),
    ],
    hooks: spec.marks?.length ? { draw: [(u) => drawMarks(u, spec.marks ?? [])] } : {},
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

/**
 * Draws each mark as a dashed red vertical line with its label at the top, on the canvas itself
 * so a PNG export carries it.
 */
function drawMarks(u: uPlot, marks: ChartMark[]): void {
  const { ctx, bbox } = u
  ctx.save()
  ctx.strokeStyle = '#b2182b'
  ctx.fillStyle = '#b2182b'
  ctx.lineWidth = Math.max(1, devicePixelRatio)
  ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio])
  ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`
  ctx.textBaseline = 'top'
  for (const mark of marks) {
    const x = Math.round(u.valToPos(mark.x, 'x', true))
    if (x < bbox.left || x > bbox.left + bbox.width) continue
    ctx.beginPath()
    ctx.moveTo(x, bbox.top)
    ctx.lineTo(x, bbox.top + bbox.height)
    ctx.stroke()
    ctx.fillText(mark.label, x + 3 * devicePixelRatio, bbox.top + 2 * devicePixelRatio)
  }
  ctx.restore()
}

/** Keeps a chart as wide as its container (phone widths included). */
export function followWidth(container: HTMLElement, plot: () => uPlot | undefined): void {
  new ResizeObserver(() => {
    const current = plot()
    if (current)
      current.setSize({ width: Math.max(container.clientWidth, 280), height: current.height })
  }).observe(container)
}
