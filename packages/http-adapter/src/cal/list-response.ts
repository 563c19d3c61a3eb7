import { jsonResponse } from '../json-response.js'
import { archivePageNotFound } from './cal-error.js'
import type { CalKind } from './cal-kind.js'

/** What a list route hands to {@link listResponse}. */
export interface ListPage<T> {
  /** The array key: `events`, `venues`, `organizers`, `categories`, `tags`. */
  key: string
  kind: CalKind
  items: T[]
  total: number
  page: number
  perPage: number
  /** The request URL; its own query (filters) is repeated in the links. */
  url: URL
}

/**
 * The list envelope `{[key]: items, rest_url, next_rest_url?, previous_rest_url?, total,
 * total_pages}` with `X-CAL-*` and `X-TEC-*` totals. A page past the last one (page > 1 and
 * nothing on it) is 404 `*-archive-page-not-found`; an empty first page is a 200.
 */
export function listResponse<T>(page: ListPage<T>): Response {
  if (page.items.length === 0 && page.page > 1) throw archivePageNotFound(page.kind)
  const totalPages = page.total === 0 ? 0 : Math.ceil(page.total / page.perPage)
  const body: Record<string, unknown> = { [page.key]: page.items }
  body.rest_url = pageUrl(page.url, page.page)
  if (page.page < totalPages) body.next_rest_url = pageUrl(page.url, page.page + 1)
  if (page.page > 1) body.previous_rest_url = pageUrl(page.url, Math.min(page.page - 1, totalPages))
  body.total = page.total
  body.total_pages = totalPages
  return jsonResponse(body, 200, {
    'X-CAL-Total': String(page.total),
    'X-CAL-TotalPages': String(totalPages),
    'X-TEC-Total': String(page.total),
    'X-TEC-TotalPages': String(totalPages),
  })
}

/** The request URL with `page` replaced; `page=1` is dropped like the original does. */
export function pageUrl(url: URL, page: number): string {
  const copy = new URL(url.href)
  copy.hash = ''
  copy.searchParams.delete('page')
  if (page > 1) copy.searchParams.set('page', String(page))
  return copy.href
}
