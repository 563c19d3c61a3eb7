/** A date bound's operator, as SQL writes it. */
export type BoundOp = '<' | '<=' | '>' | '>='

/** An instant bound on an event's start or end. */
export interface DateBound {
  column: 'start' | 'end'
  op: BoundOp
  at: Date
}

/**
 * An instant kept to the microsecond as one number comparable with a bound in whole
 * milliseconds (the API's instants): its millisecond, plus one half when microseconds lie past
 * it. Then `instant > at` is `key > at`, and so on for every operator.
 */
export const instantKey = (ms: number, us: number): number => (us > 0 ? ms + 0.5 : ms)

/** The bounds below an instant (`>`, `>=`); the others bound it from above. */
export const isLowerBound = (op: BoundOp): boolean => op === '>' || op === '>='

/**
 * Whether an instant (an {@link instantKey}, or whole milliseconds) is `op` `at`: the one rule
 * of the date filters, for single events and for series occurrences.
 */
export function holds(key: number, op: BoundOp, at: number): boolean {
  switch (op) {
    case '<':
      return key < at
    case '<=':
      return key <= at
    case '>':
      return key > at
    case '>=':
      return key >= at
  }
}
