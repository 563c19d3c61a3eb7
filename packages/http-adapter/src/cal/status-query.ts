import { POST_STATUSES, type PostStatus } from '@cal/store'
import { z } from 'zod'
import { unauthorized } from './cal-error.js'
import type { Caller } from './token-auth.js'

/** `status`: one or more post statuses (comma-separated or repeated), or `any`. */
export const statusQuery = z
  .union([z.string(), z.array(z.string())])
  .transform((v) =>
    ([] as string[])
      .concat(v)
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  )
  .pipe(z.array(z.enum(['any', ...POST_STATUSES])))
  .optional()
  .describe(
    'Statuses to list (publish, draft, pending, private, future, trash, any); needs a token for anything but publish',
  )

/** What a token holder lists by default (`any` in WordPress: everything but the trash). */
const ANY: PostStatus[] = POST_STATUSES.filter((s) => s !== 'trash')

/**
 * The statuses a list shows: anonymous callers see `publish` only and get 401 when they ask for
 * anything else; token holders see every status but `trash` unless they ask.
 */
export function resolveStatuses(asked: string[] | undefined, caller: Caller): PostStatus[] {
  const wanted = asked?.length
    ? [...new Set(asked.flatMap((s) => (s === 'any' ? ANY : [s as PostStatus])))]
    : undefined
  if (!caller.authenticated) {
    if (wanted?.some((s) => s !== 'publish')) throw unauthorized(caller.reason)
    return ['publish']
  }
  return wanted ?? ANY
}
