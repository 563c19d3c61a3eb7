import type { CalReader, PostStatus } from '@cal/store'
import { z } from 'zod'
import { jsonResponse } from '../json-response.js'
import { type Route, route } from '../route.js'
import { objectBody } from './body-fields.js'
import { calCacheKey } from './cache-key.js'
import { type CalContext, callerOf, calRoute, renderFor, requireToken } from './cal-context.js'
import { noLongerAvailable, notAccessible, notFound } from './cal-error.js'
import { listResponse } from './list-response.js'
import { modifiedQuery, toModifiedFilter } from './modified-query.js'
import type { RenderContext } from './render-context.js'
import {
  idParam,
  paging,
  pagingQuery,
  pathId,
  queryBoolean,
  storableId,
} from './request-schemas.js'
import { errorResponses, listEnvelope } from './response-schemas.js'
import { fieldsQuery, pickFields } from './sparse-fields.js'
import { resolveStatuses, statusQuery } from './status-query.js'

interface LinkedRecord {
  id: number
  status: PostStatus
}

interface LinkedFilter {
  search?: string
  event?: number
  has_events?: boolean
  upcoming_after?: Date
  status?: PostStatus[]
  modified_after?: Date
  modified_before?: Date
  limit?: number
  offset?: number
}

/** The repository surface venue and organizer routes share. */
interface LinkedRepository<T, I, P> {
  create(input: I): Promise<T>
  update(id: number, patch: P): Promise<T>
  trash(id: number): Promise<T>
  get(id: number): Promise<T | undefined>
  getBySlug(slug: string): Promise<T | undefined>
  list(filter: LinkedFilter): Promise<{ items: T[]; total: number }>
}

/** What differs between venues and organizers. */
export interface LinkedRoutesSpec<T, I, P, CB, UB> {
  kind: 'venue' | 'organizer'
  /** `venues` / `organizers`. */
  plural: string
  repository: (ctx: CalContext) => LinkedRepository<T, I, P>
  /** The list as the request's reader reads it: in one snapshot with its sync token. */
  list: (reader: CalReader, filter: LinkedFilter) => Promise<{ items: T[]; total: number }>
  render: (record: T, render: RenderContext) => { rest_url: string }
  createBody: z.ZodType<CB>
  updateBody: z.ZodType<UB>
  toInput: (body: CB) => I
  toPatch: (body: UB) => P
  searchDescription: string
  /** The record's response schema (OpenAPI). */
  schema: z.ZodType
}

/** List query of venues and organizers. */
export const linkedListQuery = z.object({
  ...pagingQuery,
  search: z.string().optional(),
  event: idParam.optional().describe('Only the records of this event'),
  has_events: queryBoolean.optional().describe('true: only records with at least one event'),
  only_with_upcoming: queryBoolean
    .optional()
    .describe('true: only records with an event ending after now'),
  status: statusQuery,
  ...modifiedQuery,
  ...fieldsQuery,
})

/** List, create, read/update/delete by id and by slug for venues or organizers. */
export function linkedRoutes<T extends LinkedRecord, I, P, CB, UB>(
  ctx: CalContext,
  spec: LinkedRoutesSpec<T, I, P, CB, UB>,
): Route[] {
  const repo = spec.repository(ctx)
  const { kind, plural } = spec
  const byId = z.object({ id: pathId.describe(`The ${kind} id`) })
  const bySlug = z.object({ slug: z.string().min(1).describe(`The ${kind} slug`) })
  type Key = { id: number } | { slug: string }
  const find = async (p: Key) =>
    'id' in p ? (storableId(p.id) ? repo.get(p.id) : undefined) : repo.getBySlug(p.slug)
  const keyOf = (p: Key) => ('id' in p ? p.id : p.slug)

  const instanceRoutes = (path: string, params: z.ZodType<Key>): Route[] => [
    calRoute({
      method: 'GET',
      path,
      summary: `One ${kind}`,
      cacheKey: calCacheKey(ctx),
      responses: {
        200: { description: `The ${kind}`, schema: spec.schema },
        ...errorResponses([400, 403, 404]),
      },
      params,
      query: z.object(fieldsQuery),
      handle: async ({ params: p, query, request, url }) => {
        const record = await find(p)
        if (!record) throw notFound(kind, keyOf(p))
        if (record.status === 'trash') throw noLongerAvailable(kind)
        const caller = callerOf(ctx, request)
        if (record.status !== 'publish' && !caller.authenticated) throw notAccessible(kind)
        const rendered = spec.render(record, renderFor(ctx, url, caller.authenticated))
        return jsonResponse(pickFields(rendered, query._fields))
      },
    }),
    ...(['POST', 'PUT', 'PATCH'] as const).map((method) =>
      route({
        method,
        path,
        summary: `Update a ${kind} (partial: absent fields unchanged, null clears)`,
        responses: {
          200: { description: `The updated ${kind}`, schema: spec.schema },
          ...errorResponses([400, 401, 404]),
        },
        params,
        body: objectBody(spec.updateBody as unknown as z.ZodObject) as unknown as z.ZodType<UB>,
        handle: async ({ params: p, body, request, url }) => {
          requireToken(ctx, request)
          const record = await find(p)
          if (!record) throw notFound(kind, keyOf(p))
          const updated = await repo.update(record.id, spec.toPatch(body))
          return jsonResponse(spec.render(updated, renderFor(ctx, url, true)))
        },
      }),
    ),
    route({
      method: 'DELETE',
      path,
      summary: `Move a ${kind} to the trash`,
      responses: {
        200: { description: `The trashed ${kind}`, schema: spec.schema },
        ...errorResponses([401, 404, 410]),
      },
      params,
      handle: async ({ params: p, request, url }) => {
        requireToken(ctx, request)
        const record = await find(p)
        if (!record) throw notFound(kind, keyOf(p))
        const trashed = await repo.trash(record.id)
        return jsonResponse(spec.render(trashed, renderFor(ctx, url, true)))
      },
    }),
  ]

  return [
    calRoute({
      method: 'GET',
      path: `/${plural}`,
      summary: `List ${plural}`,
      cacheKey: calCacheKey(ctx),
      responses: {
        200: { description: `One page of ${plural}`, schema: listEnvelope(plural, spec.schema) },
        ...errorResponses([400, 401, 404]),
      },
      description: `Ordered by name, then id. search: ${spec.searchDescription}`,
      query: linkedListQuery,
      handle: async ({ query, request, url, reader }) => {
        const caller = callerOf(ctx, request)
        const status = resolveStatuses(query.status, caller)
        const { page, perPage, limit, offset } = paging(query)
        const result = await spec.list(reader, {
          search: query.search?.trim() ? query.search : undefined,
          event: query.event,
          has_events: query.has_events,
          upcoming_after: query.only_with_upcoming ? ctx.now() : undefined,
          status,
          ...toModifiedFilter(query, ctx),
          limit,
          offset,
        })
        const render = renderFor(ctx, url, caller.authenticated)
        const items = result.items.map((r) => spec.render(r, render))
        return listResponse({
          key: plural,
          kind,
          items,
          total: result.total,
          page,
          perPage,
          url,
          fields: query._fields,
          syncToken: await reader.syncToken(),
        })
      },
    }),
    route({
      method: 'POST',
      path: `/${plural}`,
      summary: `Create a ${kind}`,
      responses: {
        201: { description: `The new ${kind} (Location: its rest_url)`, schema: spec.schema },
        ...errorResponses([400, 401]),
      },
      body: objectBody(spec.createBody as unknown as z.ZodObject) as unknown as z.ZodType<CB>,
      handle: async ({ body, request, url }) => {
        requireToken(ctx, request)
        const record = await repo.create(spec.toInput(body))
        const rendered = spec.render(record, renderFor(ctx, url, true))
        return jsonResponse(rendered, 201, { Location: rendered.rest_url })
      },
    }),
    ...instanceRoutes(`/${plural}/:id`, byId),
    ...instanceRoutes(`/${plural}/by-slug/:slug`, bySlug),
  ]
}
