import type { Kysely } from 'kysely'

/** The database a migration runs on: untyped, since migrations run before the schema exists. */
// biome-ignore lint/suspicious/noExplicitAny: migrations run before the schema exists
export type AnyDb = Kysely<any>
