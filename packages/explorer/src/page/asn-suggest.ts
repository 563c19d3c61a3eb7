// The ASN input as a combobox (WAI-ARIA "list autocomplete"): typing a name or a number asks
// `GET /api/asns?search=` (debounced; a newer keystroke aborts the older request) and lists the
// matches; arrows move, Enter picks the highlighted one (else the form submits the typed list),
// Escape closes, a click picks. Names are written as text only.
import { getJson } from './api-client.js'
import type { AsnSearchResponse } from './api-types.js'
import { asLabel } from './as-label.js'
import { moveActive, searchTextOf } from './suggest-input.js'

/** How long typing must pause before a search goes out. */
const DEBOUNCE_MS = 150
/** How many matches the list shows. */
const SHOWN = 20

export interface AsnSuggest {
  /** Closes the list and drops any pending search (after a submit). */
  close(): void
}

export function attachAsnSuggest(
  input: HTMLInputElement,
  list: HTMLUListElement,
  onPick: (asn: string, name: string) => void,
): AsnSuggest {
  let matches: AsnSearchResponse['asns'] = []
  let active = -1
  let timer: ReturnType<typeof setTimeout> | undefined
  let request: AbortController | undefined

  input.setAttribute('role', 'combobox')
  input.setAttribute('aria-autocomplete', 'list')
  input.setAttribute('aria-controls', list.id)
  input.setAttribute('aria-expanded', 'false')
  list.setAttribute('role', 'listbox')
  list.hidden = true

  function show(next: AsnSearchResponse['asns']): void {
    matches = next
    active = -1
    list.replaceChildren(
      ...next.map((match, i) => {
        const option = document.createElement('li')
        option.id = `${list.id}-${i}`
        option.setAttribute('role', 'option')
        option.setAttribute('aria-selected', 'false')
        option.dataset.asn = String(match.asn)
        option.textContent = asLabel(String(match.asn), match.name)
        return option
      }),
    )
    list.hidden = next.length === 0
    input.setAttribute('aria-expanded', String(!list.hidden))
    highlight()
  }

  function highlight(): void {
    list.querySelectorAll('[role="option"]').forEach((option, i) => {
      option.setAttribute('aria-selected', String(i === active))
      if (i === active) option.scrollIntoView({ block: 'nearest' })
    })
    if (active >= 0) input.setAttribute('aria-activedescendant', `${list.id}-${active}`)
    else input.removeAttribute('aria-activedescendant')
  }

  function close(): void {
    clearTimeout(timer)
    request?.abort()
    request = undefined
    show([])
  }

  function pick(index: number): void {
    const match = matches[index]
    if (!match) return
    close()
    onPick(String(match.asn), match.name)
  }

  async function search(text: string): Promise<void> {
    request?.abort()
    const mine = new AbortController()
    request = mine
    const query = new URLSearchParams({ search: text, limit: String(SHOWN) })
    try {
      const answer = await getJson<AsnSearchResponse>(`/api/asns?${query}`, fetch, mine.signal)
      if (request === mine) show(answer.asns)
    } catch {
      // A refused or failed search only means no suggestions; the typed list still works.
      if (request === mine) show([])
    }
  }

  input.addEventListener('input', () => {
    clearTimeout(timer)
    const text = searchTextOf(input.value)
    if (text === null) {
      close()
      return
    }
    timer = setTimeout(() => void search(text), DEBOUNCE_MS)
  })

  input.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !list.hidden) {
      event.preventDefault()
      close()
      return
    }
    if (list.hidden) return
    if (event.key === 'Enter' && active >= 0) {
      event.preventDefault()
      pick(active)
      return
    }
    // Only the arrows: Home, End and the rest keep moving the caret in the text.
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault()
      active = moveActive(active, event.key, matches.length)
      highlight()
    }
  })

  // pointerdown, not click: the input keeps its focus, and blur does not close the list first.
  list.addEventListener('pointerdown', (event) => {
    const option = (event.target as HTMLElement).closest<HTMLLIElement>('[role="option"]')
    if (!option) return
    event.preventDefault()
    pick([...list.children].indexOf(option))
  })
  input.addEventListener('blur', () => close())

  return { close }
}
