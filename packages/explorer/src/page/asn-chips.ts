/**
 * The chosen ASNs as chips: the label (`AS13335 Cloudflare, Inc.`) is a button that shows the
 * AS in the panel (pressed: the one shown), × removes it; `invalid` ones are marked. Names are
 * written as text.
 */
export function showChips(
  list: HTMLUListElement,
  asns: string[],
  label: (asn: string) => string,
  shown: string | undefined,
  invalid: string[] = [],
): void {
  list.replaceChildren(
    ...asns.map((asn) => {
      const item = document.createElement('li')
      item.dataset.asn = asn
      if (invalid.includes(asn)) item.classList.add('invalid') // the API knows no such AS
      const select = document.createElement('button')
      select.type = 'button'
      select.className = 'chip-label'
      select.dataset.select = asn
      select.setAttribute('aria-pressed', String(asn === shown))
      const name = document.createElement('bdi')
      name.textContent = label(asn)
      select.append(name)
      select.title = `${label(asn)}: show in the AS panel`
      const remove = document.createElement('button')
      remove.type = 'button'
      remove.dataset.asn = asn
      remove.textContent = '×'
      remove.setAttribute('aria-label', `Remove AS${asn}`)
      item.append(select, ' ', remove)
      return item
    }),
  )
}
