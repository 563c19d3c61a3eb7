import type { EventListFilter } from '../event.js'
import type { ScanQuery } from '../scan-query.js'
import type { CalDb } from '../store-context.js'
import type { TermResolver } from '../term-resolver.js'

/** What a filter resolves its request value with, in the list's snapshot. */
export interface FilterContext {
  /** Term refs against the terms of the list's revision. */
  terms: TermResolver
  /** `words` lowered as the database's `lower()` lowers them (it follows its locale). */
  lower(words: readonly string[]): Promise<string[]>
  /** The list's snapshot, for a filter whose data the list model does not keep (organizers). */
  db: CalDb
}

/** A filter's answer for "nothing stored can match": the list is empty without a scan. */
export const NO_MATCH: unique symbol = Symbol('no match')

/** The value a filter takes for a request: `undefined` when the request does not use it. */
export type Resolved<V> = V | undefined | typeof NO_MATCH

type Awaitable<T> = T | Promise<T>

/**
 * One list filter, written once: how a request resolves it and the tests it adds to the list
 * model's scan (`event-list-scan.ts`), for single events and series rows alike. Register it
 * in `filter-list.ts`.
 */
export interface EventFilterSpec<V> {
  /** The request field it reads (or the rule it is), for tests and reading. */
  name: string
  /** Throws the store's typed errors on bad input; every filter checks before any resolves. */
  check?(filter: EventListFilter): void
  /** Its value for `filter`; a round trip it needs runs here, once per list, in its snapshot. */
  resolve(filter: EventListFilter, context: FilterContext): Awaitable<Resolved<V>>
  /** Adds the filter's tests to `query`; runs once per scan, never per event. */
  scan(value: V, query: ScanQuery): void
}

/** A filter in force in one list plan, bound to the value the request gave it. */
export interface ActiveFilter {
  readonly name: string
  scan(query: ScanQuery): void
}

/** A registered filter, its value type hidden (what `filter-list.ts` holds). */
export interface EventFilter {
  readonly name: string
  check(filter: EventListFilter): void
  /** The filter bound to its value for `filter`, `undefined` when unused, or {@link NO_MATCH}. */
  activate(
    filter: EventListFilter,
    context: FilterContext,
  ): Awaitable<ActiveFilter | undefined | typeof NO_MATCH>
}

/** Declares a filter (see {@link EventFilterSpec}). */
export function defineFilter<V>(spec: EventFilterSpec<V>): EventFilter {
  const bind = (resolved: Resolved<V>): ActiveFilter | undefined | typeof NO_MATCH => {
    if (resolved === undefined || resolved === NO_MATCH)
      return resolved as undefined | typeof NO_MATCH
    const value = resolved as V
    return { name: spec.name, scan: (query) => spec.scan(value, query) }
  }
  return {
    name: spec.name,
    check: (filter) => spec.check?.(filter),
    activate(filter, context) {
      const resolved = spec.resolve(filter, context)
      return resolved instanceof Promise ? resolved.then(bind) : bind(resolved)
    },
  }
}
