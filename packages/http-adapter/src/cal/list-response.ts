import { jsonTextResponse } from '../json-response.js'
import { archivePageNotFound } from './cal-error.js'
import type { CalKind } from './cal-kind.js'
import { pickFields } from './sparse-fields.js'

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
  /** `_fields`: what each item keeps (see {@link pickFields}). */
  fields?: readonly string[]
  /**
   * The changes feed's token at the revision the list was read at (`reader.syncToken()`), sent
   * as `X-CAL-Sync-Token`: following `/changes` from it misses nothing the list did not show.
   */
  syncToken: string
}

/**
 * The list envelope `{[key]: items, rest_url, next_rest_url?, previous_rest_url?, total,
 * total_pages}` with `X-CAL-*`, `X-TEC-*` and `X-WP-*` totals, `X-CAL-Sync-Token` and a `Link` header. A page past the last one (page > 1 and
 * nothing on it) is 404 `*-archive-page-not-found`; an empty first page is a 200.
 */
export function listResponse<T>(page: ListPage<T>): Response {
  return listAnswer(page).response()
}

/**
 * A list answer made whole once and answered many times (a reader's memo keeps it): the
 * envelope's UTF-8 bytes and its headers.
 */
export class ListAnswer {
  constructor(
    readonly json: Uint8Array<ArrayBuffer>,
    readonly headers: Readonly<Record<string, string>>,
  ) {}

  /** What a memo weighs it by. */
  get byteLength(): number {
    return this.json.byteLength
  }

  /** A fresh response (each carries its own headers object, which the core amends). */
  response(): Response {
    return jsonTextResponse(this.json, 200, { ...this.headers })
  }
}

/** {@link listResponse}'s envelope and headers, as a {@link ListAnswer}. */
export function listAnswer<T>(page: ListPage<T>): ListAnswer {
  if (page.items.length === 0 && page.page > 1) throw archivePageNotFound(page.kind)
  const totalPages = page.total === 0 ? 0 : Math.ceil(page.total / page.perPage)
  const body: Record<string, unknown> = {
    [page.key]: page.items.map((item) => pickFields(item, page.fields)),
  }
  body.rest_url = pageUrl(page.url, page.page)
  if (page.page < totalPages) body.next_rest_url = pageUrl(page.url, page.page + 1)
  if (page.page > 1) body.previous_rest_url = pageUrl(page.url, Math.min(page.page - 1, totalPages))
  body.total = page.total
  body.total_pages = totalPages
  const headers: Record<string, string> = {}
  for (const prefix of ['X-CAL', 'X-TEC', 'X-WP']) {
    headers[`${prefix}-Total`] = String(page.total)
    headers[`${prefix}-TotalPages`] = String(totalPages)
  }
  headers['X-CAL-Sync-Token'] = page.syncToken
  const link = linkHeader(body.previous_rest_url, body.next_rest_url)
  if (link) headers.Link = link
  return new ListAnswer(new TextEncoder().encode(JSON.stringify(body)), headers)
}

/**
 * RFC 8288 `Link` with the envelope's own neighbours, as WordPress sends it (`prev` then
 * `next`), for generic WordPress clients that page by it. Absent when there is neither.
 */
function linkHeader(prev: unknown, next: unknown): string | undefined {
  const parts: string[] = []
  if (typeof prev === 'string') parts.push(`<${prev}>; rel="prev"`)
  if (typeof next === 'string') parts.push(`<${next}>; rel="next"`)
  return parts.length ? parts.join(', ') : undefined
}

/** The request URL with `page` replaced; `page=1` is dropped like the original does. */
export function pageUrl(url: URL, page: number): string {
  const copy = new URL(url.href)
  copy.hash = ''
  copy.searchParams.delete('page')
  if (page > 1) copy.searchParams.set('page', String(page))
  return copy.href
}
