import { type Kysely, sql } from 'kysely'
import { InvalidQueryError } from '../errors.js'
import { integerOption } from '../query-options.js'
import type { KcoreSchema } from '../schema.js'
import { asNameKey } from './as-name-key.js'

/** Longest search the registry takes, in characters. */
export const MAX_SEARCH_LENGTH = 200
/** Most ASes one search answers. */
export const MAX_SEARCH_LIMIT = 1_000

/** One AS a search found. */
export interface AsMatch {
  asn: number
  name: string
}

/**
 * ASes whose name matches `query` (compared as {@link asNameKey} makes both: case and accents
 * ignored, punctuation a space), best first: the ASN itself when the query is one (`13335`,
 * `AS13335`, `as 13335`), then names equal to the query, starting with it, with a word starting
 * with it, containing it, and last holding each of its words (`telefonica espana` finds
 * `Telefónica de España`); ties by name, then ASN. A query of only punctuation (`%`,
 * `_`, `.*`) matches no name. {@link InvalidQueryError} for an empty or too long query or a
 * `limit` outside 1..{@link MAX_SEARCH_LIMIT}.
 */
export async function searchAsRegistry(
  db: Kysely<KcoreSchema>,
  query: string,
  limit = 20,
): Promise<AsMatch[]> {
  const max = integerOption('limit', limit, 1, MAX_SEARCH_LIMIT)
  const trimmed = query.trim()
  if (trimmed.length === 0 || query.length > MAX_SEARCH_LENGTH)
    throw new InvalidQueryError('search', `must be 1..${MAX_SEARCH_LENGTH} characters`)
  const number = /^(?:as\s*)?(\d{1,10})$/i.exec(trimmed)?.[1]
  const asn = number !== undefined && Number(number) <= 0xffff_ffff ? Number(number) : -1
  const key = asNameKey(trimmed)
  if (asn < 0 && key === '') return []
  // The key holds letters, digits and single spaces only: nothing in it is special to LIKE.
  const words = key === '' ? [] : key.split(' ')
  const eachWord = words.length
    ? sql.join(
        words.map((w) => sql`name_key like ${`%${w}%`}`),
        sql` and `,
      )
    : sql`false`
  const { rows } = await sql<AsMatch & { rank: number }>`
    select asn, name, case
        when asn = ${asn} then 0
        when name_key = ${key} then 1
        when name_key like ${`${key}%`} then 2
        when name_key like ${`% ${key}%`} then 3
        when name_key like ${`%${key}%`} then 4
        else 5 end as rank
      from kcore_as_entry
      where asn = ${asn} or (${eachWord})
      order by rank, name_key, asn
      limit ${max}`.execute(db)
  return rows.map(({ asn, name }) => ({ asn: Number(asn), name }))
}
