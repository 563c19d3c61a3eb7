// The what-if's before/after shell histogram as a small SVG bar chart: two bars per shell on
// a log scale (shell 1 holds tens of thousands of ASes, the top shell a few dozen). SVG rather
// than uPlot: uPlot's x axis is made for time and values, and a bar chart is a few rects.
import type { ShellHistogram } from './shell-histogram.js'

const SVG = 'http://www.w3.org/2000/svg'
const WIDTH = 800
const HEIGHT = 260
const MARGIN = { top: 24, right: 8, bottom: 32, left: 52 }

function node<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number>,
  text?: string,
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG, tag)
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value))
  if (text !== undefined) element.textContent = text
  return element
}

const count = (n: number) => n.toLocaleString('en')

/**
 * Draws `histogram` into `container` (replacing what was there) and writes its test hook
 * `data-points` (what the chart holds). Each shell's pair has a `<title>` with both counts,
 * shown on hover and read by screen readers.
 */
export function drawHistogram(container: HTMLElement, histogram: ShellHistogram): void {
  const { shells, before, after } = histogram
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom
  const top = Math.max(1, ...before, ...after)
  const scale = Math.log10(top + 1)
  const y = (n: number) => MARGIN.top + plotHeight - (Math.log10(n + 1) / scale) * plotHeight
  const svg = node('svg', {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    role: 'img',
    class: 'histogram',
    'aria-label': `ASes per shell index, before and after, shells 1 to ${shells.length}, log scale`,
  })
  // The y axis: powers of ten up to the largest count.
  for (let tick = 1; tick <= top; tick *= 10) {
    const at = y(tick)
    svg.append(
      node('line', { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: at, y2: at, class: 'grid' }),
      node('text', { x: MARGIN.left - 6, y: at + 4, class: 'tick end' }, count(tick)),
    )
  }
  svg.append(
    node('text', { x: 4, y: 14, class: 'tick' }, 'ASes (log)'),
    node('text', { x: WIDTH - MARGIN.right, y: HEIGHT - 2, class: 'tick end' }, 'shell index'),
  )
  const group = plotWidth / Math.max(1, shells.length)
  const bar = Math.max(1, group * 0.4)
  const every = Math.ceil(shells.length / 20)
  shells.forEach((shell, i) => {
    const x = MARGIN.left + i * group
    const pair = node('g', { class: 'pair' })
    pair.append(
      node(
        'title',
        {},
        `shell ${shell}: ${count(before[i] ?? 0)} before, ${count(after[i] ?? 0)} after`,
      ),
      // An invisible target the height of the plot, so even an empty shell can be hovered.
      node('rect', { x, y: MARGIN.top, width: group, height: plotHeight, class: 'hit' }),
    )
    for (const [values, offset, kind] of [
      [before, 0.1, 'before'],
      [after, 0.5, 'after'],
    ] as const) {
      const top = y(values[i] ?? 0)
      pair.append(
        node('rect', {
          x: x + group * offset,
          y: top,
          width: bar,
          height: MARGIN.top + plotHeight - top,
          class: `bar-${kind}`,
        }),
      )
    }
    svg.append(pair)
    if (i % every === 0)
      svg.append(
        node(
          'text',
          { x: x + group / 2, y: HEIGHT - MARGIN.bottom + 14, class: 'tick middle' },
          String(shell),
        ),
      )
  })
  // The legend, on the canvas's own terms so it travels with the chart.
  const legend = node('g', { class: 'legend' })
  for (const [i, kind, label] of [
    [0, 'before', 'before'],
    [1, 'after', 'after the change'],
  ] as const) {
    const x = WIDTH - MARGIN.right - 220 + i * 90
    legend.append(
      node('rect', { x, y: 4, width: 12, height: 12, class: `bar-${kind}` }),
      node('text', { x: x + 16, y: 14, class: 'tick' }, label),
    )
  }
  svg.append(legend)
  container.replaceChildren(svg)
  container.dataset.points = JSON.stringify(histogram)
  container.dataset.state = 'ready'
}
