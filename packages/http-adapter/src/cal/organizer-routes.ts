import type { Route } from '../route.js'
import type { CalContext } from './cal-context.js'
import { linkedRoutes } from './linked-routes.js'
import {
  organizerCreateBody,
  organizerUpdateBody,
  toOrganizerInput,
  toOrganizerPatch,
} from './organizer-body.js'
import { renderOrganizer } from './render-organizer.js'
import { organizerRecord } from './response-schemas.js'

/** The organizer routes. */
export const organizerRoutes = (ctx: CalContext): Route[] =>
  linkedRoutes(ctx, {
    kind: 'organizer',
    plural: 'organizers',
    repository: (c) => c.store.organizers,
    list: (reader, filter) => reader.organizers.list(filter),
    render: renderOrganizer,
    createBody: organizerCreateBody,
    updateBody: organizerUpdateBody,
    toInput: toOrganizerInput,
    toPatch: toOrganizerPatch,
    schema: organizerRecord,
    searchDescription: 'words in the name or description',
  })
