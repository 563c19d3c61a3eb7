// The trend explorer page. Everything shown is a function of the URL's state (view-state.ts)
// and the public /api answers; user actions push a new URL and render it again.
import 'uplot/dist/uPlot.min.css'
import './style.css'
import type uPlot from 'uplot'
import { ApiError, getJson } from './api-client.js'
import type {
  HealthResponse,
  SnapshotRow,
  SnapshotsResponse,
  SummaryResponse,
  TrendPoint,
  TrendResponse,
} from './api-types.js'
import { addAsns, MAX_ASNS, parseAsnList } from './asn-list.js'
import { download, pngCanvas } from './export-file.js'
import {
  dateToSeconds,
  heldPoints,
  REFERENCE_LABEL,
  type ShownData,
  shownData,
  toCsv,
} from './shown-data.js'
import { statusText } from './status-text.js'
import { drawTimeChart, followWidth } from './time-chart.js'
import { formatViewState, type IpVersion, parseViewState, type ViewState } from './view-state.js'

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T
const el = {
  status: byId<HTMLParagraphElement>('status'),
  form: byId<HTMLFormElement>('controls'),
  chips: byId<HTMLUListElement>('asn-chips'),
  asnInput: byId<HTMLInputElement>('asn-input'),
  asnError: byId<HTMLParagraphElement>('asn-error'),
  start: byId<HTMLInputElement>('start'),
  end: byId<HTMLInputElement>('end'),
  rangeReset: byId<HTMLButtonElement>('range-reset'),
  dateError: byId<HTMLParagraphElement>('date-error'),
  normalized: byId<HTMLInputElement>('normalized'),
  trendChart: byId<HTMLDivElement>('trend-chart'),
  trendNote: byId<HTMLParagraphElement>('trend-note'),
  snapshotChart: byId<HTMLDivElement>('snapshot-chart'),
  exportCsv: byId<HTMLButtonElement>('export-csv'),
  exportPng: byId<HTMLButtonElement>('export-png'),
}
const radios = () => [...el.form.querySelectorAll<HTMLInputElement>('input[name="ip_version"]')]

let state: ViewState = parseViewState(location.search)
let inputMessage = '' // about what was typed (bad tokens, over the limit); cleared by the next change
let apiAsnMessages: string[] = [] // the last render's ASN errors, kept while the ASNs stay the same
let generation = 0 // renders overlap; only the newest may write to the page
let shown: ShownData | undefined
let trendPlot: uPlot | undefined
let snapshotPlot: uPlot | undefined
let snapshotVersion: IpVersion | undefined
let firstRender = true
followWidth(el.trendChart, () => trendPlot)
followWidth(el.snapshotChart, () => snapshotPlot)

// Loaded once per page: the status strip and both charts' snapshot dates come from here.
const snapshotsLoad = getJson<SnapshotsResponse>('/api/snapshots')
void loadStatus()

async function loadStatus(): Promise<void> {
  try {
    const [summary, health, snapshots] = await Promise.all([
      getJson<SummaryResponse>('/api/summary'),
      getJson<HealthResponse>('/api/health'),
      snapshotsLoad,
    ])
    el.status.textContent = statusText(summary, health, snapshots)
    el.status.dataset.state = 'ready'
  } catch (error) {
    el.status.textContent = `Data status unavailable: ${messageOf(error)}`
    el.status.dataset.state = 'error'
  }
}

function update(next: ViewState): void {
  state = next
  history.pushState(null, '', formatViewState(state))
  void render()
}

window.addEventListener('popstate', () => {
  state = parseViewState(location.search)
  inputMessage = ''
  void render()
})

el.form.addEventListener('submit', (event) => {
  event.preventDefault()
  const { asns, invalid } = parseAsnList(el.asnInput.value)
  const added = addAsns(state.asns, asns)
  const problems: string[] = []
  if (invalid.length) problems.push(`Not an ASN: ${invalid.join(', ')}.`)
  if (added.dropped.length) {
    problems.push(`At most ${MAX_ASNS} ASNs; not added: ${added.dropped.join(', ')}.`)
  }
  inputMessage = problems.join(' ')
  el.asnInput.value = invalid.join(' ')
  if (added.asns.length !== state.asns.length) update({ ...state, asns: added.asns })
  else showAsnMessages()
})

el.asnInput.addEventListener('keydown', (event) => {
  if (event.key === 'Backspace' && el.asnInput.value === '' && state.asns.length) {
    inputMessage = ''
    update({ ...state, asns: state.asns.slice(0, -1) })
  }
})

el.chips.addEventListener('click', (event) => {
  const asn = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-asn]')?.dataset
    .asn
  if (asn === undefined) return
  inputMessage = ''
  update({ ...state, asns: state.asns.filter((a) => a !== asn) })
  el.asnInput.focus()
})

for (const radio of radios()) {
  radio.addEventListener('change', () => update({ ...state, ipVersion: radio.value as IpVersion }))
}
const onDate = () => update({ ...state, start: el.start.value || null, end: el.end.value || null })
el.start.addEventListener('change', onDate)
el.end.addEventListener('change', onDate)
el.rangeReset.addEventListener('click', () => update({ ...state, start: null, end: null }))
el.normalized.addEventListener('change', () =>
  update({ ...state, normalized: el.normalized.checked }),
)
el.exportCsv.addEventListener('click', () => {
  if (shown) download(new Blob([toCsv(shown)], { type: 'text/csv' }), `${fileStem()}.csv`)
})
el.exportPng.addEventListener('click', () => {
  const canvas = trendPlot && pngCanvas(trendPlot.ctx.canvas)
  canvas?.toBlob((blob) => blob && download(blob, `${fileStem()}.png`), 'image/png')
})

/** Mirrors the state into the controls (after a load or back/forward). */
function syncControls(): void {
  el.chips.replaceChildren(
    ...state.asns.map((asn) => {
      const item = document.createElement('li')
      item.dataset.asn = asn
      const remove = document.createElement('button')
      remove.type = 'button'
      remove.dataset.asn = asn
      remove.textContent = '×'
      remove.setAttribute('aria-label', `Remove AS${asn}`)
      item.append(`AS${asn} `, remove)
      return item
    }),
  )
  for (const radio of radios()) radio.checked = radio.value === state.ipVersion
  el.start.value = state.start ?? ''
  el.end.value = state.end ?? ''
  el.normalized.checked = state.normalized
}

async function render(): Promise<void> {
  const mine = ++generation
  syncControls()
  el.trendChart.dataset.state = 'loading'
  let snapshots: SnapshotRow[]
  try {
    snapshots = (await snapshotsLoad)[state.ipVersion] ?? []
  } catch (error) {
    if (mine !== generation) return
    el.trendChart.dataset.state = 'error'
    el.trendNote.textContent = `Snapshots unavailable: ${messageOf(error)}`
    return
  }
  const view = state
  const answers = await Promise.all(view.asns.map((asn) => fetchTrend(asn, view)))
  if (mine !== generation) return

  const trends: { asn: string; points: TrendPoint[] }[] = []
  const asnErrors: string[] = []
  const dateErrors = new Set<string>()
  let range: TrendResponse['date_range'] = { start: null, end: null }
  for (const answer of answers) {
    if ('trend' in answer) {
      trends.push({ asn: answer.asn, points: answer.trend.trend_data })
      range = answer.trend.date_range
    } else if (answer.error.code === 'asn_not_found' || answer.error.code === 'invalid_asn') {
      asnErrors.push(`AS${answer.asn}: ${answer.error.message}`)
      el.chips.querySelector(`li[data-asn="${answer.asn}"]`)?.classList.add('invalid')
    } else {
      dateErrors.add(answer.error.message)
    }
  }
  apiAsnMessages = asnErrors
  showAsnMessages()
  el.dateError.textContent = [...dateErrors].join('\n')
  el.start.setAttribute('aria-invalid', String(dateErrors.size > 0))
  el.end.setAttribute('aria-invalid', String(dateErrors.size > 0))

  shown = shownData({ snapshots, range, trends, normalized: view.normalized })
  drawTrend(shown, view)
  el.trendNote.textContent = trendNote(trends, view)
  if (snapshotVersion !== view.ipVersion) drawSnapshots(snapshots, view.ipVersion)
  if (firstRender) {
    firstRender = false
    document.documentElement.dataset.firstRenderMs = String(Math.round(performance.now()))
  }
}

type TrendAnswer = { asn: string; trend: TrendResponse } | { asn: string; error: ApiError }

async function fetchTrend(asn: string, view: ViewState): Promise<TrendAnswer> {
  const query = new URLSearchParams({ ip_version: view.ipVersion })
  if (view.start) query.set('start_date', view.start)
  if (view.end) query.set('end_date', view.end)
  try {
    return { asn, trend: await getJson<TrendResponse>(`/api/trends/${asn}?${query}`) }
  } catch (error) {
    return {
      asn,
      error: error instanceof ApiError ? error : new ApiError(0, 'error', String(error)),
    }
  }
}

function drawTrend(data: ShownData, view: ViewState): void {
  trendPlot?.destroy()
  trendPlot = drawTimeChart(el.trendChart, {
    xs: data.dates.map(dateToSeconds),
    lines: data.series.map((s) => ({
      label: s.label,
      values: s.values,
      reference: s.label === REFERENCE_LABEL,
    })),
    axes: { y: view.normalized ? 'normalized shell index' : 'shell index' },
    height: chartHeight(),
  })
  // The test hook: what the chart holds, not what the API said.
  el.trendChart.dataset.series = JSON.stringify(data.series.map((s) => s.label))
  el.trendChart.dataset.points = JSON.stringify(heldPoints(data))
  el.trendChart.dataset.state = 'ready'
}

function drawSnapshots(rows: SnapshotRow[], version: IpVersion): void {
  snapshotPlot?.destroy()
  snapshotPlot = drawTimeChart(el.snapshotChart, {
    xs: rows.map((r) => dateToSeconds(r.date)),
    lines: [
      { label: 'max shell index (kmax)', values: rows.map((r) => r.max_shell_index) },
      { label: 'AS count', values: rows.map((r) => r.unique_asns), scale: 'asns' },
    ],
    axes: { y: 'max shell index', asns: 'AS count' },
    height: Math.round(chartHeight() * 0.75),
  })
  snapshotVersion = version
  el.snapshotChart.dataset.points = JSON.stringify(
    rows.map((r) => [r.date, r.max_shell_index, r.unique_asns]),
  )
  el.snapshotChart.dataset.state = 'ready'
}

function showAsnMessages(): void {
  el.asnError.textContent = [inputMessage, ...apiAsnMessages].filter(Boolean).join('\n')
  el.asnInput.setAttribute('aria-invalid', String(el.asnError.textContent !== ''))
}

function trendNote(trends: { asn: string; points: TrendPoint[] }[], view: ViewState): string {
  if (view.asns.length === 0) return 'Add an ASN above to chart its shell index.'
  const empty = trends.filter((t) => t.points.length === 0).map((t) => `AS${t.asn}`)
  return empty.length ? `No ${view.ipVersion} point in this range for ${empty.join(', ')}.` : ''
}

const chartHeight = () => (window.innerWidth < 600 ? 260 : 360)

const fileStem = () =>
  `kcore-${state.ipVersion}-${state.asns.join('_') || 'none'}${state.normalized ? '-normalized' : ''}`

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

void render()
