import type { Term, TermRepository } from '@cal/store'
import { z } from 'zod'
import { jsonResponse } from '../json-response.js'
import { type Route, route } from '../route.js'
import { objectBody } from './body-fields.js'
import { calCacheKey } from './cache-key.js'
import { type CalContext, calRoute, renderFor, requireToken } from './cal-context.js'
import { notFound } from './cal-error.js'
import { listResponse } from './list-response.js'
import { renderTerm } from './render-term.js'
import {
  idList,
  idParam,
  paging,
  pagingQuery,
  pathId,
  queryBoolean,
  storableId,
  stringList,
} from './request-schemas.js'
import { errorResponses, listEnvelope, termRecord } from './response-schemas.js'
import { fieldsQuery, pickFields } from './sparse-fields.js'
import { termCreateBody, termUpdateBody } from './term-body.js'

const termListQuery = z.object({
  ...pagingQuery,
  search: z.string().optional().describe('Part of the name or slug'),
  exclude: idList.optional().describe('Leave these ids out'),
  include: idList.optional().describe('Only these ids'),
  order: z.enum(['asc', 'desc']).optional().describe('Sort direction (default asc)'),
  orderby: z
    .enum(['id', 'name', 'slug', 'count', 'include'])
    .optional()
    .describe('Sort key (default name)'),
  hide_empty: queryBoolean
    .optional()
    .describe('Default true: hide terms that no published event uses'),
  post: idParam.optional().describe('Only the terms of this event'),
  event: idParam.optional().describe('Only the terms of this event (same as post)'),
  slug: stringList.optional().describe('Only terms with one of these slugs'),
  ...fieldsQuery,
})

const categoryListQuery = termListQuery.extend({
  parent: idParam
    .or(z.literal('0').transform(() => 0))
    .optional()
    .describe('Only children of this category (0: roots)'),
})

/** List, create, read/update/delete by id and by slug for categories or tags. */
export function termRoutes(ctx: CalContext, taxonomy: 'categories' | 'tags'): Route[] {
  const repo: TermRepository = taxonomy === 'categories' ? ctx.store.categories : ctx.store.tags
  const kind = taxonomy === 'categories' ? 'category' : 'tag'
  const byId = z.object({ id: pathId.describe(`The ${kind} id`) })
  const bySlug = z.object({ slug: z.string().min(1).describe(`The ${kind} slug`) })
  type Key = { id: number } | { slug: string }
  const find = async (p: Key): Promise<Term | undefined> =>
    'id' in p ? (storableId(p.id) ? repo.get(p.id) : undefined) : repo.getBySlug(p.slug)
  const keyOf = (p: Key) => ('id' in p ? p.id : p.slug)
  const createBody =
    taxonomy === 'categories' ? termCreateBody : termCreateBody.omit({ parent: true })
  const updateBody =
    taxonomy === 'categories' ? termUpdateBody : termUpdateBody.omit({ parent: true })
  const listQuery = taxonomy === 'categories' ? categoryListQuery : termListQuery

  const instance = (path: string, params: z.ZodType<Key>): Route[] => [
    calRoute({
      method: 'GET',
      path,
      summary: `One ${kind}`,
      cacheKey: calCacheKey(ctx),
      responses: {
        200: { description: `The ${kind}`, schema: termRecord },
        ...errorResponses([400, 404]),
      },
      params,
      query: z.object(fieldsQuery),
      handle: async ({ params: p, query, url }) => {
        const term = await find(p)
        if (!term) throw notFound(kind, keyOf(p))
        return jsonResponse(pickFields(renderTerm(term, renderFor(ctx, url, false)), query._fields))
      },
    }),
    ...(['POST', 'PUT', 'PATCH'] as const).map((method) =>
      route({
        method,
        path,
        summary: `Update a ${kind} (partial)`,
        responses: {
          200: { description: `The updated ${kind}`, schema: termRecord },
          ...errorResponses([400, 401, 404]),
        },
        params,
        body: objectBody(updateBody),
        handle: async ({ params: p, body, request, url }) => {
          requireToken(ctx, request)
          const term = await find(p)
          if (!term) throw notFound(kind, keyOf(p))
          const updated = await repo.update(term.id, body)
          return jsonResponse(renderTerm(updated, renderFor(ctx, url, true)))
        },
      }),
    ),
    route({
      method: 'DELETE',
      path,
      summary: `Delete a ${kind} permanently`,
      responses: {
        200: {
          description: `The ${kind} as it was, with deleted: true`,
          schema: termRecord.extend({ deleted: z.literal(true) }),
        },
        ...errorResponses([401, 404]),
      },
      params,
      handle: async ({ params: p, request, url }) => {
        requireToken(ctx, request)
        const term = await find(p)
        if (!term) throw notFound(kind, keyOf(p))
        const deleted = await repo.delete(term.id)
        return jsonResponse({ ...renderTerm(deleted, renderFor(ctx, url, true)), deleted: true })
      },
    }),
  ]

  return [
    calRoute({
      method: 'GET',
      path: `/${taxonomy}`,
      summary: `List ${taxonomy}`,
      cacheKey: calCacheKey(ctx),
      responses: {
        200: { description: `One page of ${taxonomy}`, schema: listEnvelope(taxonomy, termRecord) },
        ...errorResponses([400, 404]),
      },
      query: listQuery,
      handle: async ({ query, url, reader }) => {
        const q = query as z.output<typeof categoryListQuery>
        const { page, perPage, limit, offset } = paging(q)
        const result = await reader[taxonomy].list({
          search: q.search?.trim() ? q.search.trim() : undefined,
          exclude: q.exclude?.length ? q.exclude : undefined,
          include: q.include?.length ? q.include : undefined,
          order: q.order,
          orderby: q.orderby,
          hide_empty: q.hide_empty ?? true,
          parent: q.parent,
          event: q.post ?? q.event,
          slug: q.slug?.length ? q.slug : undefined,
          limit,
          offset,
        })
        const render = renderFor(ctx, url, false)
        const items = result.items.map((t) => renderTerm(t, render))
        return listResponse({
          key: taxonomy,
          kind,
          items,
          total: result.total,
          page,
          perPage,
          url,
          fields: q._fields,
          syncToken: await reader.syncToken(),
        })
      },
    }),
    route({
      method: 'POST',
      path: `/${taxonomy}`,
      summary: `Create a ${kind}`,
      responses: {
        201: { description: `The new ${kind} (Location: urls.self)`, schema: termRecord },
        ...errorResponses([400, 401]),
      },
      body: objectBody(createBody),
      handle: async ({ body, request, url }) => {
        requireToken(ctx, request)
        const term = await repo.create(body)
        const rendered = renderTerm(term, renderFor(ctx, url, true))
        return jsonResponse(rendered, 201, { Location: rendered.urls.self })
      },
    }),
    ...instance(`/${taxonomy}/:id`, byId),
    ...instance(`/${taxonomy}/by-slug/:slug`, bySlug),
  ]
}
