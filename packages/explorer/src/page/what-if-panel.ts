// The "What if" panel (issue #44): a snapshot, an IP version and ASes to remove; Run asks
// `POST /api/what-if` and the snapshot's distribution, then shows the sentence, the before/after
// histogram and who drops. The question run lives in the URL (view-state.ts `whatIf`); the
// controls are a draft until Run. A new question aborts the one in flight.
import { ApiError, getJson, postJson } from './api-client.js'
import type { DistributionResponse, SnapshotsResponse, WhatIfResponse } from './api-types.js'
import type { AsDirectory } from './as-directory.js'
import { showChips } from './asn-chips.js'
import { parseAsnList } from './asn-list.js'
import { attachAsnSuggest } from './asn-suggest.js'
import { drawHistogram } from './histogram-chart.js'
import { el, whatIfRadios } from './page-elements.js'
import { shellHistogram } from './shell-histogram.js'
import { type IpVersion, MAX_REMOVED_ASNS, type WhatIfQuery } from './view-state.js'
import { rankDrops, type ShellDrop } from './what-if-drops.js'
import { moreText, whatIfSummary } from './what-if-text.js'

/** How many drops the table lists. */
export const SHOWN_DROPS = 200
/** How many names the table asks for at once (one `GET /api/asns/{asn}` each). */
const NAME_REQUESTS = 6

export interface WhatIfPanel {
  /** Shows `query`'s answer (asking for it unless it is the one shown); `null`: no question. */
  show(query: WhatIfQuery | null): void
}

export function attachWhatIfPanel(options: {
  snapshots: Promise<SnapshotsResponse>
  directory: AsDirectory
  /** Puts a new question into the URL; the page then calls `show` with it. */
  run(query: WhatIfQuery): void
}): WhatIfPanel {
  const { directory } = options
  const w = el.whatIf
  let snapshots: SnapshotsResponse = {}
  let draft: string[] = []
  let wantedDate: string | null = null
  let shownKey: string | undefined
  let request: AbortController | undefined
  let generation = 0

  const version = (): IpVersion =>
    whatIfRadios().find((r) => r.checked)?.value === 'ipv6' ? 'ipv6' : 'ipv4'

  /** The version's snapshot dates, newest first; a date from a link that is not stored stays. */
  function fillDates(): void {
    const dates = (snapshots[version()] ?? []).map((row) => row.date).reverse()
    const keep = wantedDate ?? w.date.value
    if (keep && !dates.includes(keep)) dates.unshift(keep)
    w.date.replaceChildren(
      ...dates.map((date) =>
        Object.assign(document.createElement('option'), { value: date, textContent: date }),
      ),
    )
    if (keep && dates.includes(keep)) w.date.value = keep
  }

  function showDraft(): void {
    showChips(w.chips, draft, directory.label, undefined)
  }

  /** Adds ASNs to the draft, saying what was refused; names arrive after. */
  function addToDraft(asns: string[], problems: string[]): void {
    for (const asn of asns) {
      if (draft.includes(asn)) continue
      if (draft.length >= MAX_REMOVED_ASNS) {
        problems.push(`At most ${MAX_REMOVED_ASNS} ASes; not added: AS${asn}.`)
        continue
      }
      draft.push(asn)
    }
    w.asnError.textContent = problems.join(' ')
    w.asnInput.setAttribute('aria-invalid', String(problems.length > 0))
    showDraft()
    void Promise.all(asns.map((asn) => directory.overview(asn).catch(() => undefined))).then(
      showDraft,
    )
  }

  function addTyped(): void {
    const { asns, invalid } = parseAsnList(w.asnInput.value)
    w.asnInput.value = invalid.join(' ')
    addToDraft(asns, invalid.length ? [`Not an ASN: ${invalid.join(', ')}.`] : [])
  }

  const suggest = attachAsnSuggest(w.asnInput, w.suggestions, (asn, name) => {
    directory.remember(asn, name)
    w.asnInput.value = ''
    addToDraft([asn], [])
  })

  // Enter adds what is typed (the suggestions' Enter on a highlighted option comes first);
  // Run, the form's submit, asks.
  w.asnInput.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.defaultPrevented) {
      event.preventDefault()
      suggest.close()
      addTyped()
    } else if (event.key === 'Backspace' && w.asnInput.value === '' && draft.length) {
      draft = draft.slice(0, -1)
      showDraft()
    }
  })

  w.chips.addEventListener('click', (event) => {
    const asn = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-asn]')
      ?.dataset.asn
    if (asn === undefined) return
    draft = draft.filter((a) => a !== asn)
    showDraft()
    w.asnInput.focus()
  })

  for (const radio of whatIfRadios())
    radio.addEventListener('change', () => {
      wantedDate = null
      fillDates()
    })

  w.form.addEventListener('submit', (event) => {
    event.preventDefault()
    suggest.close()
    addTyped()
    if (w.date.value === '') {
      showError(`No ${version() === 'ipv6' ? 'IPv6' : 'IPv4'} snapshot is stored yet.`)
      return
    }
    const query: WhatIfQuery = { date: w.date.value, ipVersion: version(), remove: [...draft] }
    // The same question again asks again (after a failure, say) without a new history entry.
    if (keyOf(query) === shownKey) void ask(query)
    else options.run(query)
  })

  void options.snapshots.then(
    (answer) => {
      snapshots = answer
      fillDates()
    },
    () => undefined, // the status strip says the snapshots are unavailable
  )

  function showError(message: string): void {
    w.error.textContent = message
    w.result.dataset.state = 'error'
    w.summary.textContent = 'No answer.'
    w.histogram.hidden = true
    w.drops.hidden = true
    w.more.textContent = ''
  }

  async function ask(query: WhatIfQuery): Promise<void> {
    request?.abort()
    const mine = new AbortController()
    request = mine
    const turn = ++generation
    w.result.dataset.state = 'loading'
    w.error.textContent = ''
    w.summary.textContent = `Computing ${query.date} without ${query.remove.length} AS${query.remove.length === 1 ? '' : 'es'}…`
    const version = `ip_version=${query.ipVersion}`
    const [answer, distribution] = await Promise.allSettled([
      postJson<WhatIfResponse>(
        '/api/what-if',
        { date: query.date, ip_version: query.ipVersion, remove_asns: query.remove.map(Number) },
        fetch,
        mine.signal,
      ),
      getJson<DistributionResponse>(
        `/api/snapshots/${encodeURIComponent(query.date)}/distribution?${version}`,
        fetch,
        mine.signal,
      ),
    ])
    if (turn !== generation) return
    request = undefined
    if (answer.status === 'rejected') {
      showError(errorText(answer.reason))
      return
    }
    const result = answer.value
    const ranked = rankDrops(result.changes, SHOWN_DROPS)
    const drops = result.changes.filter(
      (c) => c.before !== null && c.after !== null && c.after < c.before,
    ).length
    w.summary.textContent = whatIfSummary(result, drops)
    if (distribution.status === 'fulfilled') {
      drawHistogram(w.histogram, shellHistogram(distribution.value.shells, result.changes))
      w.histogram.hidden = false
    } else {
      w.histogram.hidden = true
      w.error.textContent = `Histogram unavailable: ${errorText(distribution.reason)}`
    }
    showDrops(ranked.shown, turn)
    w.more.textContent = moreText(ranked.more)
    w.result.dataset.state = 'ready'
  }

  function showDrops(drops: ShellDrop[], turn: number): void {
    const body = w.drops.tBodies[0] as HTMLTableSectionElement
    const cells = new Map<string, HTMLElement>()
    body.replaceChildren(
      ...drops.map((drop) => {
        const row = document.createElement('tr')
        const asn = String(drop.asn)
        row.dataset.asn = asn
        const name = document.createElement('bdi')
        name.textContent = directory.label(asn)
        cells.set(asn, name)
        const as = document.createElement('td')
        as.append(name)
        row.append(as, ...[drop.before, drop.after, drop.before - drop.after].map(cell))
        return row
      }),
    )
    w.drops.hidden = drops.length === 0
    // The names follow, a few requests at a time; a newer answer stops the writing.
    w.drops.dataset.names = 'loading'
    const queue = [...cells.keys()]
    const worker = async () => {
      for (let asn = queue.shift(); asn !== undefined; asn = queue.shift()) {
        await directory.overview(asn).catch(() => undefined)
        if (turn !== generation) return
        const name = cells.get(asn)
        if (name) name.textContent = directory.label(asn)
      }
    }
    void Promise.all(Array.from({ length: NAME_REQUESTS }, worker)).then(() => {
      if (turn === generation) w.drops.dataset.names = 'ready'
    })
  }

  return {
    show(query) {
      const key = keyOf(query)
      if (key === shownKey) return
      shownKey = key
      if (query === null) {
        request?.abort()
        generation++
        w.error.textContent = ''
        w.result.dataset.state = 'empty'
        w.histogram.hidden = true
        w.drops.hidden = true
        w.more.textContent = ''
        return
      }
      // The controls say what is asked, whoever asked it (Run, a link, back/forward).
      for (const radio of whatIfRadios()) radio.checked = radio.value === query.ipVersion
      wantedDate = query.date
      fillDates()
      draft = [...query.remove]
      showDraft()
      void Promise.all(
        query.remove.map((asn) => directory.overview(asn).catch(() => undefined)),
      ).then(showDraft)
      void ask(query)
    },
  }
}

const keyOf = (query: WhatIfQuery | null) => JSON.stringify(query)

function cell(value: number): HTMLTableCellElement {
  return Object.assign(document.createElement('td'), { textContent: String(value) })
}

/** An error answer as the page says it: the API's own message, with what it means here. */
function errorText(error: unknown): string {
  if (!(error instanceof ApiError)) return String(error)
  if (error.code === 'snapshot_links_not_stored')
    return `This snapshot's links are not stored, so no what-if can be answered on it: ${error.message}`
  if (error.status === 404) return `No such snapshot: ${error.message}`
  if (error.status === 400) return `The question was refused: ${error.message}`
  return error.message
}
