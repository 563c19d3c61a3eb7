import { MAX_ASN } from '@kcore/engine'
import { sql } from 'kysely'

/** True for an integer AS number 0..4294967295. */
export function isAsn(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= MAX_ASN
}

/**
 * A list of integers as ONE bound parameter cast to a PostgreSQL array (`'{1,2,3}'::bigint[]`).
 * Both drivers pass the text as is, so PostgreSQL and PGlite take the same path, and a
 * 75k-element array costs one parameter instead of 75k.
 */
export function intArray(values: ArrayLike<number>, type: 'bigint' | 'int' = 'bigint') {
  const text = `{${Array.prototype.join.call(values, ',')}}`
  return type === 'bigint' ? sql`${text}::bigint[]` : sql`${text}::int[]`
}
