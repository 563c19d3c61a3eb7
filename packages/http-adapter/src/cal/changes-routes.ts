import { DEFAULT_CHANGES_PAGE, formatLocalDateTime, MAX_CHANGES_PAGE } from '@cal/store'
import { z } from 'zod'
import { jsonResponse } from '../json-response.js'
import type { Route } from '../route.js'
import { calCacheKey } from './cache-key.js'
import { type CalContext, callerOf, calRoute } from './cal-context.js'
import { errorResponses } from './response-schemas.js'

/** `per_page` of the feed: 1–500, refused (not clamped) outside, since a client pages by it. */
const feedPerPage = z
  .string()
  .regex(/^\d{1,4}$/, `must be an integer from 1 to ${MAX_CHANGES_PAGE}`)
  .transform(Number)
  .refine(
    (n) => n >= 1 && n <= MAX_CHANGES_PAGE,
    `must be an integer from 1 to ${MAX_CHANGES_PAGE}`,
  )

export const changesQuery = z.object({
  since: z
    .string()
    .min(1, 'must be a sync token')
    .optional()
    .describe(
      'A token: `X-CAL-Sync-Token` of a list answer, or `next_since` of a page. Absent: start a full sync',
    ),
  per_page: feedPerPage
    .optional()
    .describe(`Records per page (default ${DEFAULT_CHANGES_PAGE}, at most ${MAX_CHANGES_PAGE})`),
})

const feedChange = z.strictObject({
  type: z.enum(['event', 'venue', 'organizer', 'category', 'tag']),
  id: z.number().int(),
  action: z.enum(['created', 'updated', 'deleted']),
  modified_utc: z.string(),
})

/** The feed page as returned. */
export const changesPage = z.strictObject({
  changes: z.array(feedChange),
  next_since: z.string(),
  more: z.boolean(),
})

/**
 * `GET /changes`: what changed after a sync token, oldest first, each record once per page with
 * its latest action, up to the request's reader revision. Without a token, a full sync: every
 * record the caller could see at the sync's start as `created`, by key, then the changes after
 * that start. Anonymous callers see
 * public records (a record leaving `publish` is `deleted` for them), token holders every record
 * until trashed.
 */
export const changesRoutes = (ctx: CalContext): Route[] => [
  calRoute({
    method: 'GET',
    path: '/changes',
    summary: 'Changes since a sync token (creates, updates, deletes), or a full sync',
    description:
      "Without `since`: a full sync. Its pages list every record the caller could see when the sync began as `created`, by (type, id), so none is skipped or repeated whatever is written meanwhile (a record changed since is listed with the sync's start as `modified_utc`); after the last one, `next_since` follows every change made since the sync began, so nothing listed comes again as new. With `since` (`X-CAL-Sync-Token` of a list answer, or `next_since` of a page): the changes after it. Follow each page's `next_since` while `more` is true. A token older than the kept history (`CAL_CHANGES_RETENTION_DAYS`, counted from when it was issued) or not made by this server is 410 `sync-token-expired`: sync again.",
    cacheKey: calCacheKey(ctx),
    query: changesQuery,
    responses: {
      200: { description: 'One page of changes', schema: changesPage },
      ...errorResponses([400, 410]),
    },
    handle: async ({ query, request, reader }) => {
      const page = await reader.changes({
        since: query.since,
        limit: query.per_page ?? DEFAULT_CHANGES_PAGE,
        view: callerOf(ctx, request).authenticated ? 'all' : 'public',
      })
      return jsonResponse({
        changes: page.changes.map((c) => ({
          type: c.kind,
          id: c.id,
          action: c.action,
          modified_utc: formatLocalDateTime(c.modified, 'UTC'),
        })),
        next_since: page.nextSince,
        more: page.more,
      })
    },
  }),
]
