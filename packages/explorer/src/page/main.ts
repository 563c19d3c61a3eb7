// The trend explorer page. Everything shown is a function of the URL's state (view-state.ts)
// and the public /api answers; user actions push a new URL and render it again.
import 'uplot/dist/uPlot.min.css'
import './style.css'
import type uPlot from 'uplot'
import { getJson } from './api-client.js'
import type {
  AsnOverview,
  HealthResponse,
  SnapshotsResponse,
  SummaryResponse,
  TrendPoint,
  TrendResponse,
} from './api-types.js'
import { createAsDirectory } from './as-directory.js'
import { showAsPanel } from './as-panel.js'
import { showChips } from './asn-chips.js'
import { addAsns, MAX_ASNS, parseAsnList } from './asn-list.js'
import { attachAsnSuggest } from './asn-suggest.js'
import { breaksOf, breaksShown, breakText } from './data-breaks.js'
import { download, pngCanvas } from './export-file.js'
import { el, radios } from './page-elements.js'
import { type ShownData, shownVersions, toCsv } from './shown-data.js'
import { statusText, trendNote } from './status-text.js'
import { followWidth } from './time-chart.js'
import { drawSnapshots, drawTrend } from './trend-drawing.js'
import { fetchTrend } from './trend-fetch.js'
import {
  formatViewState,
  type IpVersion,
  panelAsn,
  parseViewState,
  type ViewState,
  type ViewVersion,
  versionsOf,
} from './view-state.js'
import { attachWhatIfPanel } from './what-if-panel.js'

let state: ViewState = parseViewState(location.search)
let inputMessage = '' // about what was typed (bad tokens, over the limit); cleared by the next change
let apiAsnMessages: string[] = [] // the last render's ASN errors, kept while the ASNs stay the same
let generation = 0 // renders overlap; only the newest may write to the page
let shown: ShownData | undefined
let trendPlot: uPlot | undefined
let snapshotPlot: uPlot | undefined
let snapshotView: ViewVersion | undefined
let firstRender = true
followWidth(el.trendChart, () => trendPlot)
followWidth(el.snapshotChart, () => snapshotPlot)

// Loaded once per page: the status strip, the breaks and both charts' snapshot dates.
const snapshotsLoad = getJson<SnapshotsResponse>('/api/snapshots')
const summaryLoad = getJson<SummaryResponse>('/api/summary')
const directory = createAsDirectory((asn) => getJson<AsnOverview>(`/api/asns/${asn}`))
void loadStatus()
const whatIf = attachWhatIfPanel({
  snapshots: snapshotsLoad,
  directory,
  run: (query) => update({ ...state, whatIf: query }),
})

async function loadStatus(): Promise<void> {
  try {
    const [summary, health, snapshots] = await Promise.all([
      summaryLoad,
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

/** Adds ASNs (typed or picked), saying what did not fit; `problems` are about the typing. */
function addToView(asns: string[], problems: string[], panel = state.panel): void {
  const added = addAsns(state.asns, asns)
  if (added.dropped.length) {
    problems.push(`At most ${MAX_ASNS} ASNs; not added: ${added.dropped.join(', ')}.`)
  }
  inputMessage = problems.join(' ')
  const shownPanel = panel !== null && added.asns.includes(panel) ? panel : state.panel
  if (added.asns.length !== state.asns.length || shownPanel !== state.panel)
    update({ ...state, asns: added.asns, panel: shownPanel })
  else showAsnMessages()
}

const suggest = attachAsnSuggest(el.asnInput, el.suggestions, (asn, name) => {
  directory.remember(asn, name)
  el.asnInput.value = ''
  addToView([asn], [], asn)
})

el.form.addEventListener('submit', (event) => {
  event.preventDefault()
  suggest.close()
  const { asns, invalid } = parseAsnList(el.asnInput.value)
  el.asnInput.value = invalid.join(' ')
  addToView(asns, invalid.length ? [`Not an ASN: ${invalid.join(', ')}.`] : [])
})

el.asnInput.addEventListener('keydown', (event) => {
  if (event.key === 'Backspace' && el.asnInput.value === '' && state.asns.length) {
    inputMessage = ''
    update({ ...state, asns: state.asns.slice(0, -1) })
  }
})

el.chips.addEventListener('click', (event) => {
  const target = event.target as HTMLElement
  const select = target.closest<HTMLButtonElement>('button[data-select]')?.dataset.select
  if (select !== undefined) {
    update({ ...state, panel: select })
    return
  }
  const asn = target.closest<HTMLButtonElement>('button[data-asn]')?.dataset.asn
  if (asn === undefined) return
  inputMessage = ''
  update({ ...state, asns: state.asns.filter((a) => a !== asn) })
  el.asnInput.focus()
})

for (const radio of radios()) {
  radio.addEventListener('change', () =>
    update({ ...state, ipVersion: radio.value as ViewVersion }),
  )
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
  showChips(el.chips, state.asns, directory.label, panelAsn(state))
  for (const radio of radios()) radio.checked = radio.value === state.ipVersion
  el.start.value = state.start ?? ''
  el.end.value = state.end ?? ''
  el.normalized.checked = state.normalized
}

async function render(): Promise<void> {
  const mine = ++generation
  syncControls()
  whatIf.show(state.whatIf)
  el.trendChart.dataset.state = 'loading'
  let snapshots: SnapshotsResponse
  try {
    snapshots = await snapshotsLoad
  } catch (error) {
    if (mine !== generation) return
    el.trendChart.dataset.state = 'error'
    el.trendNote.textContent = `Snapshots unavailable: ${messageOf(error)}`
    return
  }
  const view = state
  const versions = versionsOf(view.ipVersion)
  const panel = panelAsn(view)
  if (panel !== panelAsnShown) showAsPanel(el.asPanel, panel, undefined)
  // Names and the panel's facts come from each ASN's overview (fetched once per page): nothing
  // waits for them, so a slow or failing /api/asns/{asn} leaves `AS13335` longer, never the chart.
  const current = <T>(load: Promise<T>, then: (value: T) => void) =>
    void load.then((value) => mine === generation && then(value))
  const overviewOf = (asn: string) => directory.overview(asn).catch(() => undefined)
  current(panel === undefined ? Promise.resolve(undefined) : overviewOf(panel), (overview) => {
    showAsPanel(el.asPanel, panel, overview)
    panelAsnShown = panel
  })
  const [answers, summary] = await Promise.all([
    Promise.all(versions.flatMap((v) => view.asns.map((asn) => fetchTrend(asn, v, view)))),
    summaryLoad.catch(() => undefined),
  ])
  if (mine !== generation) return

  const trends = new Map<IpVersion, { asn: string; points: TrendPoint[] }[]>(
    versions.map((v) => [v, []]),
  )
  const unknown = new Map<string, string[]>()
  const dateErrors = new Set<string>()
  let range: TrendResponse['date_range'] = { start: null, end: null }
  for (const answer of answers) {
    if ('trend' in answer) {
      trends.get(answer.version)?.push({ asn: answer.asn, points: answer.trend.trend_data })
      range = answer.trend.date_range
    } else if (answer.error.code === 'asn_not_found' || answer.error.code === 'invalid_asn') {
      unknown.set(answer.asn, [...(unknown.get(answer.asn) ?? []), answer.error.message])
    } else {
      dateErrors.add(answer.error.message)
    }
  }
  // An ASN is unknown when no version drawn has it; in the both view, a version without it
  // is only an empty line.
  const asnErrors: string[] = []
  const invalid: string[] = [] // chips drawn red
  for (const [asn, messages] of unknown) {
    if (messages.length < versions.length) {
      for (const list of trends.values())
        if (!list.some((t) => t.asn === asn)) list.push({ asn, points: [] })
      continue
    }
    asnErrors.push(`AS${asn}: ${messages[0]}`)
    invalid.push(asn)
  }
  const chips = () => showChips(el.chips, view.asns, directory.label, panel, invalid)
  chips()
  apiAsnMessages = asnErrors
  showAsnMessages()
  el.dateError.textContent = [...dateErrors].join('\n')
  el.start.setAttribute('aria-invalid', String(dateErrors.size > 0))
  el.end.setAttribute('aria-invalid', String(dateErrors.size > 0))

  const input = {
    range,
    normalized: view.normalized,
    legend: directory.label,
    versions: versions.map((version) => ({
      version,
      snapshots: snapshots[version] ?? [],
      trends: (trends.get(version) ?? []).sort(
        (a, b) => view.asns.indexOf(a.asn) - view.asns.indexOf(b.asn),
      ),
    })),
  }
  const breaks = breaksShown(breaksOf(summary), versions, shownVersions(input).dates)
  const draw = () => {
    shown = shownVersions(input) // the legends read the names known now
    trendPlot?.destroy()
    trendPlot = drawTrend(el.trendChart, shown, view.normalized, breaks)
  }
  draw()
  const labelsNow = () => view.asns.map(directory.label).join('\n')
  const labelled = labelsNow() // what the chips and the chart say
  el.trendBreaks.replaceChildren(
    ...breaks.map((b) =>
      Object.assign(document.createElement('li'), { textContent: breakText(b) }),
    ),
  )
  el.trendNote.textContent = trendNote(trends, view)
  if (snapshotView !== view.ipVersion) {
    snapshotPlot?.destroy()
    snapshotPlot = drawSnapshots(el.snapshotChart, snapshots, view.ipVersion)
    snapshotView = view.ipVersion
  }
  if (firstRender) {
    firstRender = false
    document.documentElement.dataset.firstRenderMs = String(Math.round(performance.now()))
  }
  // The names arrived: the same trends, relabelled (chips, legends and the hover legend).
  current(Promise.all(view.asns.map(overviewOf)), () => {
    if (labelsNow() === labelled) return
    chips()
    draw()
  })
}
let panelAsnShown: string | undefined

function showAsnMessages(): void {
  el.asnError.textContent = [inputMessage, ...apiAsnMessages].filter(Boolean).join('\n')
  el.asnInput.setAttribute('aria-invalid', String(el.asnError.textContent !== ''))
}

const fileStem = () =>
  `kcore-${state.ipVersion}-${state.asns.join('_') || 'none'}${state.normalized ? '-normalized' : ''}`

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

void render()
