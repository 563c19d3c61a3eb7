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
}

export const radios = () => [
  ...el.form.querySelectorAll<HTMLInputElement>('input[name="ip_version"]'),
]
