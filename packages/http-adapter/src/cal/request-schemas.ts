import { isEventId } from '@cal/store'
import { z } from 'zod'

/** A query flag: `true`/`false`/`1`/`0` (any case). */
export const queryBoolean = z
  .enum(['true', 'false', '1', '0', 'TRUE', 'FALSE', 'True', 'False'])
  .transform((v) => v === '1' || v.toLowerCase() === 'true')

/** A JSON body flag: a boolean, or the query spellings. */
export const bodyBoolean = z.union([z.boolean(), queryBoolean])

/** Splits `a,b` and repeated keys into one list of trimmed, non-empty strings. */
export const stringList = z.union([z.string(), z.array(z.string())]).transform((v) =>
  ([] as string[])
    .concat(v)
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== ''),
)

/** Largest id the store can hold (PostgreSQL `integer`). */
export const MAX_ID = 2_147_483_647

/** A positive integer id in a path or a query. */
export const idParam = z
  .string()
  .regex(/^\d{1,10}$/, 'must be a positive integer id')
  .transform(Number)
  .refine((n) => n >= 1 && n <= MAX_ID, 'must be a positive integer id')

/**
 * An id in a path: any digits. Out-of-range values (0, above {@link MAX_ID}) name no record, so
 * they answer 404 like any unknown id; see {@link storableId}.
 */
export const pathId = z
  .string()
  .regex(/^\d{1,20}$/, 'must be a positive integer id')
  .transform(Number)

/** Whether an id can exist in the store (look-ups of other ids are skipped: not found). */
export const storableId = (id: number) => Number.isInteger(id) && id >= 1 && id <= MAX_ID

/** A list of positive integer ids (comma-separated or repeated). */
export const idList = stringList.pipe(z.array(idParam))

/**
 * An event id in a query: a serial id or an occurrence id of a recurring series (up to
 * 2^53, see `@cal/store`'s `series-ids.ts`).
 */
export const eventIdParam = z
  .string()
  .regex(/^\d{1,16}$/, 'must be a positive integer id')
  .transform(Number)
  .refine(isEventId, 'must be an event id')

/** A list of event ids (comma-separated or repeated). */
export const eventIdList = stringList.pipe(z.array(eventIdParam))

/** Whether an id can name an event: a serial id, or an occurrence id of a series. */
export const storableEventId = (id: number) => isEventId(id)

/** `scope` of a write on an occurrence of a recurring series. */
export const seriesScope = z
  .enum(['this', 'following', 'all'])
  .describe(
    'On an occurrence of a recurring series: this one (default), this and the following ones (the series is split), or all',
  )

/**
 * A page number past which no list can have rows: ids are PostgreSQL `integer`s, so no table
 * holds more than {@link MAX_ID} rows. Larger pages are read as this one (still past the end:
 * the 404), which keeps `offset` a safe integer however many digits the client sends.
 */
const PAST_ANY_END = MAX_ID + 1

/** Digits of any length as a number, saturated at `cap` (no precision or Infinity surprises). */
const saturatedDigits = (cap: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be an integer ≥ 1')
    .transform((s) => {
      const digits = s.replace(/^0+(?=\d)/, '')
      return digits.length > String(cap).length ? cap : Math.min(Number(digits), cap)
    })
    .pipe(z.number().int().min(1, 'must be an integer ≥ 1'))

/** `page` (default 1) and `per_page` (default 10, any larger value clamped to 50). */
export const pagingQuery = {
  page: saturatedDigits(PAST_ANY_END).optional().describe('The page of results to return, from 1'),
  per_page: saturatedDigits(50).optional().describe('Records per page (default 10, at most 50)'),
}

/** The resolved paging of a list request. */
export const paging = (q: { page?: number; per_page?: number }) => {
  const page = q.page ?? 1
  const perPage = q.per_page ?? 10
  return { page, perPage, limit: perPage, offset: (page - 1) * perPage }
}
