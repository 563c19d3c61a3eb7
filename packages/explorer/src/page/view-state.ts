import { addAsns, parseAsnList } from './asn-list.js'

export type IpVersion = 'ipv4' | 'ipv6'

/** Everything the page shows is a function of this state, which lives in the URL query. */
export interface ViewState {
  asns: string[]
  ipVersion: IpVersion
  /** As typed (`YYYY-MM-DD` expected); the API judges it and its message is shown. */
  start: string | null
  end: string | null
  normalized: boolean
}

export const DEFAULT_STATE: ViewState = {
  asns: [],
  ipVersion: 'ipv4',
  start: null,
  end: null,
  normalized: false,
}

// Long enough for any date the API accepts, short enough that a pasted URL cannot bloat requests.
const MAX_DATE_CHARS = 32

/** Reads the state from a query string (`?asns=3356,174&ip_version=ipv6&start=2010-01-01`). */
export function parseViewState(search: string): ViewState {
  const query = new URLSearchParams(search)
  const list = parseAsnList(query.get('asns') ?? '')
  const date = (name: string) => {
    const value = query.get(name)?.trim().slice(0, MAX_DATE_CHARS)
    return value ? value : null
  }
  return {
    asns: addAsns([], list.asns).asns,
    ipVersion: query.get('ip_version') === 'ipv6' ? 'ipv6' : 'ipv4',
    start: date('start'),
    end: date('end'),
    normalized: query.get('normalized') === '1',
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
  // Commas are legal in a query; keeping them makes shared links readable.
  return `?${query.toString().replaceAll('%2C', ',')}`
}
