import type { Expression, ExpressionBuilder, SqlBool } from 'kysely'
import type { EventListFilter } from '../event.js'
import type { ScanQuery } from '../scan-query.js'
import type { CalSchema } from '../schema.js'
import type { CalDb } from '../store-context.js'
import type { TermResolver } from '../term-resolver.js'

/** The tables of an event list query: `cal_event as e` and what subqueries reach. */
export type EventListTables = CalSchema & { e: CalSchema['cal_event'] }

/** What a filter's SQL form builds with. */
export interface SqlContext {
  /** Expressions over `cal_event as e`. */
  eb: ExpressionBuilder<EventListTables, 'e'>
  /** For a form that first asks the database something. */
  db: CalDb
}

/** What a filter's memory form may ask of the model before the scan reads any column. */
export interface MemoryContext {
  /** `words` lowered as the database's `lower()` lowers them (it follows its locale). */
  lower(words: readonly string[]): Promise<string[]>
}

/** A filter's answer for "nothing stored can match": the list is empty without a query. */
export const NO_MATCH: unique symbol = Symbol('no match')

/** A filter's memory form when it has none: a list using it goes to SQL. */
export const SQL_ONLY: unique symbol = Symbol('sql only')

/** The value a filter takes for a request: `undefined` when the request does not use it. */
export type Resolved<V> = V | undefined | typeof NO_MATCH

type Awaitable<T> = T | Promise<T>

/** How a filter runs in memory, over `EventColumns` (see `ScanQuery`). */
export interface MemoryForm<V> {
  /** Work that needs no column (a database round trip), done before the scan picks its columns. */
  prepare?(value: V, context: MemoryContext): Promise<V>
  /** Adds the filter's tests to `query`; runs once per list, never per event. */
  scan(value: V, query: ScanQuery): void
}

/**
 * One list filter, declared once: how a request resolves it, its SQL condition and its memory
 * form side by side, so the SQL list (`event-list.ts`) and the model's scan
 * (`event-list-scan.ts`) cannot drift apart. Register it in `filter-list.ts`.
 */
export interface EventFilterSpec<V> {
  /** The request field it reads (or the rule it is), for tests and reading. */
  name: string
  /** Throws the store's typed errors on bad input; every filter checks before any resolves. */
  check?(filter: EventListFilter): void
  /** Its value for `filter`, resolving term refs through `terms` (SQL's or the model's). */
  resolve(filter: EventListFilter, terms: TermResolver): Awaitable<Resolved<V>>
  /** Its condition on `cal_event as e`. */
  where(value: V, context: SqlContext): Awaitable<Expression<SqlBool>>
  /** Its memory form, or {@link SQL_ONLY}. */
  memory: MemoryForm<V> | typeof SQL_ONLY
}

/** A filter in force in one list plan: its forms bound to the value the request gave it. */
export interface ActiveFilter {
  readonly name: string
  where(context: SqlContext): Awaitable<Expression<SqlBool>>
  /** Prepares the memory form; `undefined` when the filter is SQL only. */
  readonly prepare: ((context: MemoryContext) => Promise<(query: ScanQuery) => void>) | undefined
}

/** A registered filter, its value type hidden (what `filter-list.ts` holds). */
export interface EventFilter {
  readonly name: string
  readonly sqlOnly: boolean
  check(filter: EventListFilter): void
  /** The filter bound to its value for `filter`, `undefined` when unused, or {@link NO_MATCH}. */
  activate(
    filter: EventListFilter,
    terms: TermResolver,
  ): Awaitable<ActiveFilter | undefined | typeof NO_MATCH>
}

/** Declares a filter (see {@link EventFilterSpec}). */
export function defineFilter<V>(spec: EventFilterSpec<V>): EventFilter {
  const { memory } = spec
  const bind = (resolved: Resolved<V>): ActiveFilter | undefined | typeof NO_MATCH => {
    if (resolved === undefined || resolved === NO_MATCH)
      return resolved as undefined | typeof NO_MATCH
    const value = resolved as V
    return {
      name: spec.name,
      where: (context) => spec.where(value, context),
      prepare:
        memory === SQL_ONLY
          ? undefined
          : async (context) => {
              const prepared = memory.prepare ? await memory.prepare(value, context) : value
              return (query) => memory.scan(prepared, query)
            },
    }
  }
  return {
    name: spec.name,
    sqlOnly: memory === SQL_ONLY,
    check: (filter) => spec.check?.(filter),
    activate(filter, terms) {
      const resolved = spec.resolve(filter, terms)
      return resolved instanceof Promise ? resolved.then(bind) : bind(resolved)
    },
  }
}
