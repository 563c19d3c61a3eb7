// The page's elements, looked up once (index.html defines every id).
const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T

export const el = {
  status: byId<HTMLParagraphElement>('status'),
  form: byId<HTMLFormElement>('controls'),
  chips: byId<HTMLUListElement>('asn-chips'),
  asnInput: byId<HTMLInputElement>('asn-input'),
  suggestions: byId<HTMLUListElement>('asn-suggestions'),
  asnError: byId<HTMLParagraphElement>('asn-error'),
  start: byId<HTMLInputElement>('start'),
  end: byId<HTMLInputElement>('end'),
  rangeReset: byId<HTMLButtonElement>('range-reset'),
  dateError: byId<HTMLParagraphElement>('date-error'),
  normalized: byId<HTMLInputElement>('normalized'),
  trendChart: byId<HTMLDivElement>('trend-chart'),
  trendNote: byId<HTMLParagraphElement>('trend-note'),
  trendBreaks: byId<HTMLUListElement>('trend-breaks'),
  asPanel: byId<HTMLElement>('as-panel'),
  snapshotChart: byId<HTMLDivElement>('snapshot-chart'),
  exportCsv: byId<HTMLButtonElement>('export-csv'),
  exportPng: byId<HTMLButtonElement>('export-png'),
  whatIf: {
    form: byId<HTMLFormElement>('what-if-form'),
    date: byId<HTMLSelectElement>('what-if-date'),
    chips: byId<HTMLUListElement>('what-if-chips'),
    asnInput: byId<HTMLInputElement>('what-if-asn-input'),
    suggestions: byId<HTMLUListElement>('what-if-suggestions'),
    asnError: byId<HTMLParagraphElement>('what-if-asn-error'),
    error: byId<HTMLParagraphElement>('what-if-error'),
    result: byId<HTMLDivElement>('what-if-result'),
    summary: byId<HTMLParagraphElement>('what-if-summary'),
    histogram: byId<HTMLDivElement>('what-if-histogram'),
    drops: byId<HTMLTableElement>('what-if-drops'),
    more: byId<HTMLParagraphElement>('what-if-more'),
  },
}

export const radios = () => [
  ...el.form.querySelectorAll<HTMLInputElement>('input[name="ip_version"]'),
]

export const whatIfRadios = () => [
  ...el.whatIf.form.querySelectorAll<HTMLInputElement>('input[name="what_if_ip_version"]'),
]
