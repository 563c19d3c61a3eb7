import type { CalEvent, EventRelations } from '@cal/store'
import { renderCost } from './cost.js'
import type { RenderContext } from './render-context.js'
import { recordDates, renderImage } from './render-dates.js'
import { renderOrganizer } from './render-organizer.js'
import { renderTerm } from './render-term.js'
import { renderVenue } from './render-venue.js'
import { timezoneAbbreviation, zonedDate } from './wall-time.js'

/**
 * An event record as the API returns it. With `hideText` (lists, anonymous callers) a
 * password-protected event shows empty `description` and `excerpt`.
 */
export function renderEvent(
  event: CalEvent,
  relations: EventRelations,
  ctx: RenderContext,
  options: { hideText?: boolean } = {},
) {
  const hide = options.hideText === true && event.password_protected
  const start = zonedDate(event.start, event.timezone)
  const end = zonedDate(event.end, event.timezone)
  const utcStart = zonedDate(event.start, 'UTC')
  const utcEnd = zonedDate(event.end, 'UTC')
  const cost = renderCost(
    event.cost === null ? null : typeof event.cost === 'string' ? [event.cost] : event.cost,
  )
  const venue = event.venue_id === null ? undefined : relations.venues.get(event.venue_id)
  const terms = (ids: number[]) =>
    ids.flatMap((id) => {
      const term = relations.terms.get(id)
      return term ? [renderTerm(term, ctx)] : []
    })
  return {
    id: event.id,
    global_id: `${ctx.host}?id=${event.id}`,
    author: event.author,
    status: event.status,
    ...recordDates(event, ctx.timezone),
    url: `${ctx.origin}/event/${event.slug}/`,
    rest_url: `${ctx.restBase}/events/${event.id}`,
    title: event.title,
    description: hide ? '' : event.description,
    excerpt: hide ? '' : event.excerpt,
    slug: event.slug,
    image: renderImage(event.image),
    all_day: event.all_day,
    start_date: start.text,
    start_date_details: start.details,
    end_date: end.text,
    end_date_details: end.details,
    utc_start_date: utcStart.text,
    utc_start_date_details: utcStart.details,
    utc_end_date: utcEnd.text,
    utc_end_date_details: utcEnd.details,
    timezone: event.timezone,
    timezone_abbr: timezoneAbbreviation(event.start, event.timezone),
    cost: cost.cost,
    cost_details: cost.cost_details,
    website: event.website ?? '',
    show_map: event.show_map,
    show_map_link: event.show_map_link,
    hide_from_listings: event.hide_from_listings,
    sticky: event.sticky,
    featured: event.featured,
    ticketed: event.ticketed,
    password_protected: event.password_protected,
    categories: terms(event.category_ids),
    tags: terms(event.tag_ids),
    venue: venue ? renderVenue(venue, ctx) : [],
    organizer: event.organizer_ids.flatMap((id) => {
      const organizer = relations.organizers.get(id)
      return organizer ? [renderOrganizer(organizer, ctx)] : []
    }),
    // Recurrence (beyond the original v1): an occurrence names its series as post_parent.
    post_parent: event.post_parent ?? 0,
    is_recurring: event.recurrence != null,
    recurrence: event.recurrence ?? null,
    occurrence_start_utc: event.occurrence_start
      ? zonedDate(event.occurrence_start, 'UTC').text
      : null,
  }
}
