import type { CalReader, EventListFilter } from '@cal/store'
import { measuredResponse } from '../json-response.js'
import type { RouteInput } from '../route.js'
import { calCacheKey } from './cache-key.js'
import { type CalContext, renderFor } from './cal-context.js'
import { renderEventPage } from './event-list-page.js'
import { type EventListQuery, readEventList, toEventFilter } from './event-list-query.js'
import { eventsCalendar, ICAL_MAX_EVENTS, ICAL_TYPE } from './ical-feed.js'

/** What `GET /events` is handed by the core: its validated query and the request's reader. */
export type EventListInput = RouteInput<unknown, EventListQuery, unknown, CalReader>

/** A page of events and their venues, organizers and terms, read in one snapshot. */
function readPage(reader: CalReader, filter: EventListFilter) {
  return reader.events.listWith(filter, async (result, records) => ({
    result,
    relations: await records.relations(result.items),
  }))
}

/** The conditional-GET key of `GET /events`: the default window moves with the clock. */
export const eventListKey = (ctx: CalContext) =>
  calCacheKey(ctx, ({ query }) => JSON.stringify(toEventFilter(query as EventListQuery, ctx)))

/**
 * `GET /events`: the query read into the store's filter (`readEventList`), the page read at the
 * reader's revision, rendered, answered. The rendered page is kept in the API's memo by that
 * revision: a repeated list is one lookup. Links are built on the public origin and dates
 * rendered in the service zone, so both are part of the key (two APIs may share one store).
 */
export async function answerEventList(ctx: CalContext, input: EventListInput): Promise<Response> {
  const { reader, url } = input
  const request = readEventList(input.query, input.request, ctx)
  const render = renderFor(ctx, url, request.privileged)
  if (request.feed) {
    // Each series once, with its rules; its edited occurrences as events of their own. The
    // whole filtered list, bounded: `X-CAL-Total` says how many matched, so a client can tell
    // a cut feed from a complete one. `include` lists its ids whatever their dates.
    const { filter } = request
    const { result, relations } = await readPage(reader, {
      ...filter,
      limit: ICAL_MAX_EVENTS,
      offset: 0,
      series_rows: true,
    })
    const window = filter.include ? undefined : filter.window
    const body = eventsCalendar(result.items, relations, render, `Events · ${url.host}`, {
      fromMs: window?.start?.getTime(),
      toMs: window?.end?.getTime(),
    })
    return measuredResponse(body, 200, {
      'Content-Type': ICAL_TYPE,
      'X-CAL-Total': String(result.total),
      'X-CAL-Feed-Events': String(result.items.length),
    })
  }
  const key = input.cacheKey ?? eventListKey(ctx)(input).key
  const memoKey = [key, url.origin, ctx.timezone].join('\u0000')
  const answer = await ctx.memo.get(reader.revision, memoKey, async () => {
    const { result, relations } = await readPage(reader, request.filter)
    return renderEventPage(result, relations, request, render, url, await reader.syncToken())
  })
  return answer.response()
}
