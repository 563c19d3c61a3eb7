import type { Term } from '@cal/store'
import type { RenderContext } from './render-context.js'

/** The collection path of a taxonomy. */
export const termCollection = (term: Pick<Term, 'taxonomy'>) =>
  term.taxonomy === 'cal_event_category' ? 'categories' : 'tags'

/** A category or tag as the API returns it, with `urls {self, collection, up?}`. */
export function renderTerm(term: Term, ctx: RenderContext) {
  const collection = `${ctx.restBase}/${termCollection(term)}`
  const urls: { self: string; collection: string; up?: string } = {
    self: `${collection}/${term.id}`,
    collection,
  }
  if (term.parent) urls.up = `${collection}/${term.parent}`
  return {
    id: term.id,
    name: term.name,
    slug: term.slug,
    taxonomy: term.taxonomy,
    description: term.description ?? '',
    parent: term.parent,
    count: term.count,
    urls,
  }
}
