import type { Venue } from '@cal/store'
import type { RenderContext } from './render-context.js'
import { recordDates, renderImage } from './render-dates.js'

/** A venue record as the API returns it (empty fields are `""`). */
export function renderVenue(venue: Venue, ctx: RenderContext) {
  return {
    id: venue.id,
    author: venue.author,
    status: venue.status,
    ...recordDates(venue, ctx.timezone),
    url: `${ctx.origin}/venue/${venue.slug}/`,
    rest_url: `${ctx.restBase}/venues/${venue.id}`,
    venue: venue.name,
    slug: venue.slug,
    description: venue.description ?? '',
    image: renderImage(venue.image),
    show_map: venue.show_map,
    show_map_link: venue.show_map_link,
    address: venue.address ?? '',
    city: venue.city ?? '',
    country: venue.country ?? '',
    province: venue.province ?? '',
    state: venue.state ?? '',
    zip: venue.zip ?? '',
    phone: venue.phone ?? '',
    stateprovince: venue.state ?? venue.province ?? '',
    website: venue.website ?? '',
    geo_lat: venue.geo_lat ?? '',
    geo_lng: venue.geo_lng ?? '',
  }
}
