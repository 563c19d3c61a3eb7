import type { Route } from '../route.js'
import type { CalContext } from './cal-context.js'
import { linkedRoutes } from './linked-routes.js'
import { renderVenue } from './render-venue.js'
import { venueRecord } from './response-schemas.js'
import { toVenueInput, toVenuePatch, venueCreateBody, venueUpdateBody } from './venue-body.js'

/** The venue routes. */
export const venueRoutes = (ctx: CalContext): Route[] =>
  linkedRoutes(ctx, {
    kind: 'venue',
    plural: 'venues',
    repository: (c) => c.store.venues,
    list: (reader, filter) => reader.venues.list(filter),
    render: renderVenue,
    createBody: venueCreateBody,
    updateBody: venueUpdateBody,
    toInput: toVenueInput,
    toPatch: toVenuePatch,
    schema: venueRecord,
    searchDescription: 'words in the name, description or address fields',
  })
