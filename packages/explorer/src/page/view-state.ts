import { addAsns, parseAsnList } from './asn-list.js'

export type IpVersion = 'ipv4' | 'ipv6'

/** What the trend chart shows: one IP version, or both on one time axis. */
export type ViewVersion = IpVersion | 'both'

/** The versions a view draws, IPv4 first. */
export const versionsOf = (version: ViewVersion): IpVersion[] =>
  version === 'both' ? ['ipv4', 'ipv6'] : [version]

/** Everything the page shows is a function of this state, which lives in the URL query. */
export interface ViewState {
  asns: string[]
  ipVersion: ViewVersion
  /** As typed (`YYYY-MM-DD` expected); the API judges it and its message is shown. */
  start: string | null
  end: string | null
  normalized: boolean
  /** The AS the AS panel describes, one of `asns`; `null`: the first of them. */
  panel: string | null
  /** The what-if question last run (`null`: none), so a link reproduces its answer. */
  whatIf: WhatIfQuery | null
}

/** A what-if question: a snapshot, and the ASes removed from it. */
export interface WhatIfQuery {
  /** As given (`YYYY-MM-DD` expected); the API judges it and its message is shown. */
  date: string
  ipVersion: IpVersion
  remove: string[]
}

/** The API's bound on `remove_asns`; a hand-written link keeps the first ones. */
export const MAX_REMOVED_ASNS = 1000

export const DEFAULT_STATE: ViewState = {
  asns: [],
  ipVersion: 'ipv4',
  start: null,
  end: null,
  normalized: false,
  panel: null,
  whatIf: null,
}

// Long enough for any date the API accepts, short enough that a pasted URL cannot bloat requests.
const MAX_DATE_CHARS = 32

/** The AS the panel describes: the chosen one while it is charted, else the first ASN. */
export const panelAsn = (state: ViewState): string | undefined =>
  state.panel !== null && state.asns.includes(state.panel) ? state.panel : state.asns[0]

/** Reads the state from a query string (`?asns=3356,174&ip_version=ipv6&start=2010-01-01`). */
export function parseViewState(search: string): ViewState {
  const query = new URLSearchParams(search)
  const list = parseAsnList(query.get('asns') ?? '')
  const date = (name: string) => {
    const value = query.get(name)?.trim().slice(0, MAX_DATE_CHARS)
    return value ? value : null
  }
  const asns = addAsns([], list.asns).asns
  const version = query.get('ip_version')
  const panel = parseAsnList(query.get('as') ?? '').asns[0]
  return {
    asns,
    ipVersion: version === 'ipv6' || version === 'both' ? version : 'ipv4',
    start: date('start'),
    end: date('end'),
    normalized: query.get('normalized') === '1',
    // Only an AS on the chart has a panel; a link naming another one falls back to the first.
    panel: panel !== undefined && asns.includes(panel) ? panel : null,
    whatIf: parseWhatIf(query, date('what_if')),
  }
}

/** `?what_if=2015-01-01&what_if_ip_version=ipv6&remove=174,3356`; no date, no question. */
function parseWhatIf(query: URLSearchParams, date: string | null): WhatIfQuery | null {
  if (date === null) return null
  return {
    date,
    ipVersion: query.get('what_if_ip_version') === 'ipv6' ? 'ipv6' : 'ipv4',
    remove: parseAsnList(query.get('remove') ?? '').asns.slice(0, MAX_REMOVED_ASNS),
  }
}

/** Writes the state as a query string; defaults are left out so links stay short. */
export function formatViewState(state: ViewState): string {
  const query = new URLSearchParams()
  if (state.asns.length) query.set('asns', state.asns.join(','))
  query.set('ip_version', state.ipVersion)
  if (state.start) query.set('start', state.start)
  if (state.end) query.set('end', state.end)
  if (state.normalized) query.set('normalized', '1')
  if (state.panel !== null) query.set('as', state.panel)
  if (state.whatIf) {
    query.set('what_if', state.whatIf.date)
    if (state.whatIf.ipVersion !== 'ipv4') query.set('what_if_ip_version', state.whatIf.ipVersion)
    if (state.whatIf.remove.length) query.set('remove', state.whatIf.remove.join(','))
  }
  // Commas are legal in a query; keeping them makes shared links readable.
  return `?${query.toString().replaceAll('%2C', ',')}`
}
