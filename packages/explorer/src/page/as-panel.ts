import type { AsnOverview } from './api-types.js'
import { panelText } from './as-panel-text.js'

/** Fills the AS panel (`section#as-panel`); `asn` undefined hides it. Text only, never HTML. */
export function showAsPanel(
  panel: HTMLElement,
  asn: string | undefined,
  overview: AsnOverview | null | undefined,
): void {
  panel.hidden = asn === undefined
  if (asn === undefined) return
  const title = panel.querySelector('h2') as HTMLHeadingElement
  const registry = panel.querySelector('.registry') as HTMLParagraphElement
  const facts = panel.querySelector('dl') as HTMLDListElement
  panel.dataset.asn = asn
  if (overview === undefined) {
    // Still loading, or the request failed: say so rather than show another AS's facts.
    title.textContent = `AS${asn}`
    registry.textContent = 'Loading…'
    facts.replaceChildren()
    return
  }
  const text = panelText(asn, overview)
  const bdi = document.createElement('bdi')
  bdi.textContent = text.title
  title.replaceChildren(bdi)
  registry.textContent = text.registry
  facts.replaceChildren(
    ...text.facts.flatMap(([term, detail]) => {
      const dt = document.createElement('dt')
      dt.textContent = term
      const dd = document.createElement('dd')
      dd.textContent = detail
      return [dt, dd]
    }),
  )
}
