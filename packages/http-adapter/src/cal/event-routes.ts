import { type CalEvent, CalStaleReadError, type SeriesScope } from '@cal/store'
import { z } from 'zod'
import { jsonResponse } from '../json-response.js'
import { type Route, route } from '../route.js'
import { objectBody } from './body-fields.js'
import { calCacheKey } from './cache-key.js'
import { type CalContext, callerOf, calRoute, renderFor, requireToken } from './cal-context.js'
import {
  noLongerAvailable,
  notAccessible,
  notFound,
  passwordProtected,
  updateConflict,
} from './cal-error.js'
import { eventCreateBody, eventUpdateBody } from './event-body.js'
import { answerEventList, eventListKey } from './event-list.js'
import { eventListQuery } from './event-list-query.js'
import { checkEventBody, patchReadsEvent, toEventInput, toEventPatch } from './event-write.js'
import type { RenderContext } from './render-context.js'
import { renderEvent } from './render-event.js'
import { pathId, seriesScope, storableEventId } from './request-schemas.js'
import { errorResponses, eventRecord, listEnvelope } from './response-schemas.js'
import { fieldsQuery, pickFields } from './sparse-fields.js'

/** Reads of an event an update may make when other writes keep changing it under the update. */
const STALE_READ_ATTEMPTS = 5

const byId = z.object({ id: pathId.describe('Event id') })
const bySlug = z.object({ slug: z.string().min(1).describe('Event slug') })
const writeQuery = z.object({ scope: seriesScope.optional() })
const readQuery = z.object({
  password: z.string().optional().describe('The event password, for a password-protected event'),
  ...fieldsQuery,
})

async function renderOne(ctx: CalContext, event: CalEvent, render: RenderContext) {
  const relations = await ctx.store.relations([event])
  return renderEvent(event, relations, render)
}

/** The event routes: list, create, read/update/delete by id and by slug. */
export function eventRoutes(ctx: CalContext): Route[] {
  const { store } = ctx

  const read = async (
    event: CalEvent | undefined,
    key: number | string,
    request: Request,
    url: URL,
    password?: string,
    fields?: string[],
  ) => {
    if (!event) throw notFound('event', key)
    const caller = callerOf(ctx, request)
    if (event.status === 'trash') throw noLongerAvailable('event')
    if (!caller.authenticated) {
      if (event.status !== 'publish') throw notAccessible('event')
      if (event.password_protected) {
        if (password === undefined || !(await store.events.verifyPassword(event.id, password)))
          throw passwordProtected()
      }
    }
    const rendered = await renderOne(ctx, event, renderFor(ctx, url, caller.authenticated))
    return jsonResponse(pickFields(rendered, fields))
  }

  const update = async (
    find: () => Promise<CalEvent | undefined>,
    key: number | string,
    body: z.output<typeof eventUpdateBody>,
    request: Request,
    url: URL,
    queryScope?: SeriesScope,
  ) => {
    checkEventBody(body, ctx.timezone, ctx.now())
    const scope = body.scope ?? queryScope
    requireToken(ctx, request)
    // Dates given without a zone are read in the event's zone, and a zone change keeps the
    // other wall time: such a patch is only right for the read it was computed from, so the
    // store applies it only if the event is unchanged (`ifSequence`, checked under the row
    // lock); a write that slipped in between makes us read and compute again.
    const readDependent = patchReadsEvent(body)
    for (let attempt = 1; ; attempt++) {
      const existing = await find()
      if (!existing) throw notFound('event', key)
      const patch = toEventPatch(body, { serviceZone: ctx.timezone, now: ctx.now(), existing })
      try {
        const event = await store.events.update(existing.id, patch, {
          ...(readDependent && { ifSequence: existing.sequence }),
          ...(scope && { scope }),
        })
        const rendered = await renderOne(ctx, event, renderFor(ctx, url, true))
        return jsonResponse(
          event.dropped_overrides
            ? { ...rendered, dropped_overrides: event.dropped_overrides }
            : rendered,
        )
      } catch (error) {
        if (!(error instanceof CalStaleReadError)) throw error
        if (attempt >= STALE_READ_ATTEMPTS) throw updateConflict()
      }
    }
  }

  const remove = async (
    find: () => Promise<CalEvent | undefined>,
    key: number | string,
    request: Request,
    url: URL,
    scope?: SeriesScope,
  ) => {
    requireToken(ctx, request)
    const existing = await find()
    if (!existing) throw notFound('event', key)
    const event = await store.events.trash(existing.id, scope ? { scope } : undefined)
    return jsonResponse(await renderOne(ctx, event, renderFor(ctx, url, true)))
  }

  const writes = (
    path: string,
    params: z.ZodType<{ id: number } | { slug: string }>,
    find: (p: { id: number } | { slug: string }) => Promise<CalEvent | undefined>,
  ): Route[] => [
    ...(['POST', 'PUT', 'PATCH'] as const).map((method) =>
      route({
        method,
        path,
        summary: 'Update an event (partial: absent fields unchanged, null clears)',
        responses: {
          200: { description: 'The updated event', schema: eventRecord },
          // 410: a deleted occurrence (scope this or following) stays deleted.
          ...errorResponses([400, 401, 404, 410]),
        },
        params,
        query: writeQuery,
        body: objectBody(eventUpdateBody),
        handle: ({ params: p, query, body, request, url }) =>
          update(() => find(p), 'id' in p ? p.id : p.slug, body, request, url, query.scope),
      }),
    ),
    route({
      method: 'DELETE',
      path,
      summary: 'Move an event to the trash (an occurrence: by scope)',
      responses: {
        200: { description: 'The trashed event', schema: eventRecord },
        ...errorResponses([401, 404, 410]),
      },
      params,
      query: writeQuery,
      handle: ({ params: p, query, request, url }) =>
        remove(() => find(p), 'id' in p ? p.id : p.slug, request, url, query.scope),
    }),
  ]

  const findById = async (p: { id: number } | { slug: string }) =>
    'id' in p
      ? storableEventId(p.id)
        ? store.events.get(p.id)
        : undefined
      : store.events.getBySlug(p.slug)

  return [
    calRoute({
      method: 'GET',
      path: '/events',
      summary: 'List events',
      cacheKey: eventListKey(ctx),
      responses: {
        200: {
          description: 'One page of events, or with format=ics the iCalendar feed',
          schema: listEnvelope('events', eventRecord),
          alternatives: {
            'text/calendar':
              'RFC 5545 iCalendar: one VEVENT per event (UID, SEQUENCE, DTSTART/DTEND with TZID and VTIMEZONE, all-day as VALUE=DATE)',
          },
        },
        ...errorResponses([400, 401, 404]),
      },
      description:
        'Events overlapping the date window, ordered by start date then id. With `format=ics` or `Accept: text/calendar`: the same filters as one iCalendar feed (no paging; at most 5,000 events).',
      query: eventListQuery,
      handle: (input) => answerEventList(ctx, input),
    }),
    route({
      method: 'POST',
      path: '/events',
      summary: 'Create an event',
      responses: {
        201: { description: 'The new event (Location: its rest_url)', schema: eventRecord },
        ...errorResponses([400, 401]),
      },
      body: objectBody(eventCreateBody),
      handle: async ({ body, request, url }) => {
        checkEventBody(body, ctx.timezone, ctx.now())
        requireToken(ctx, request)
        const event = await store.events.create(
          toEventInput(body, { serviceZone: ctx.timezone, now: ctx.now() }),
        )
        const rendered = await renderOne(ctx, event, renderFor(ctx, url, true))
        return jsonResponse(rendered, 201, { Location: rendered.rest_url })
      },
    }),
    calRoute({
      method: 'GET',
      path: '/events/:id',
      summary: 'One event by id',
      cacheKey: calCacheKey(ctx),
      responses: {
        200: { description: 'The event', schema: eventRecord },
        ...errorResponses([400, 403, 404]),
      },
      params: byId,
      query: readQuery,
      handle: async ({ params, query, request, url }) =>
        read(
          storableEventId(params.id) ? await store.events.get(params.id) : undefined,
          params.id,
          request,
          url,
          query.password,
          query._fields,
        ),
    }),
    ...writes('/events/:id', byId, findById),
    calRoute({
      method: 'GET',
      path: '/events/by-slug/:slug',
      summary: 'One event by slug',
      cacheKey: calCacheKey(ctx),
      responses: {
        200: { description: 'The event', schema: eventRecord },
        ...errorResponses([400, 403, 404]),
      },
      params: bySlug,
      query: readQuery,
      handle: async ({ params, query, request, url }) =>
        read(
          await store.events.getBySlug(params.slug),
          params.slug,
          request,
          url,
          query.password,
          query._fields,
        ),
    }),
    ...writes('/events/by-slug/:slug', bySlug, findById),
  ]
}
