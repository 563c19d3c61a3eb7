import type { Organizer } from '@cal/store'
import type { RenderContext } from './render-context.js'
import { recordDates, renderImage } from './render-dates.js'

/** An organizer record as the API returns it (empty fields are `""`). */
export function renderOrganizer(organizer: Organizer, ctx: RenderContext) {
  return {
    id: organizer.id,
    author: organizer.author,
    status: organizer.status,
    ...recordDates(organizer, ctx.timezone),
    url: `${ctx.origin}/organizer/${organizer.slug}/`,
    rest_url: `${ctx.restBase}/organizers/${organizer.id}`,
    organizer: organizer.name,
    slug: organizer.slug,
    description: organizer.description ?? '',
    image: renderImage(organizer.image),
    phone: organizer.phone ?? '',
    website: organizer.website ?? '',
    email: organizer.email ?? '',
  }
}
