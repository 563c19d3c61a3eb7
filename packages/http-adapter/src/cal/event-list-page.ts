import type { CalEvent, EventRelations, ListResult } from '@cal/store'
import type { EventListRequest } from './event-list-query.js'
import { type ListAnswer, listAnswer } from './list-response.js'
import type { RenderContext } from './render-context.js'
import { renderEvent } from './render-event.js'

/** A page of events as its JSON list answer: each event rendered, the envelope and headers. */
export function renderEventPage(
  page: ListResult<CalEvent>,
  relations: EventRelations,
  request: EventListRequest,
  render: RenderContext,
  url: URL,
  syncToken: string,
): ListAnswer {
  const items = page.items.map((e) =>
    renderEvent(e, relations, render, { hideText: !request.privileged }),
  )
  return listAnswer({
    key: 'events',
    kind: 'event',
    items,
    total: page.total,
    page: request.page,
    perPage: request.perPage,
    url,
    fields: request.fields,
    syncToken,
  })
}
