import type { Kysely } from 'kysely'

/**
 * The database a migration runs on: no tables known, since a migration runs before the schema
 * it makes exists (its statements are `sql` and `db.schema`, which take any database).
 */
export type AnyDb = Kysely<unknown>
