import { MAX_SERIES_SLOT } from './migrations/0014-recurrence.js'

/**
 * Occurrence ids: `slot · 2^33 + key`, where `slot` (1 … 2^20 − 1) is the series' own number
 * (`cal_event.series_slot`) and `key` (< 2^33) the occurrence's wall-clock minute since
 * 1000-01-01 (`recurrence/`). Every such id is ≥ 2^33, above any serial id (PostgreSQL
 * `integer`), and below 2^53, so JSON carries it exactly; decoding it needs no table scan (the
 * slot's unique index finds the series). A series' first occurrence is the series' own id.
 */
export const KEY_SPACE = 2 ** 33

export { MAX_SERIES_SLOT }

/** The id of the occurrence `key` of the series in `slot`. */
export function occurrenceId(slot: number, key: number): number {
  return slot * KEY_SPACE + key
}

/** The (slot, key) of an occurrence id, or `undefined` for any other number. */
export function decodeOccurrenceId(id: number): { slot: number; key: number } | undefined {
  if (!Number.isSafeInteger(id) || id < KEY_SPACE) return undefined
  const slot = Math.floor(id / KEY_SPACE)
  if (slot > MAX_SERIES_SLOT) return undefined
  return { slot, key: id - slot * KEY_SPACE }
}

/** Whether `id` can name an event: a serial id or an occurrence id. */
export function isEventId(id: number): boolean {
  return (
    (Number.isSafeInteger(id) && id > 0 && id <= 2 ** 31 - 1) ||
    decodeOccurrenceId(id) !== undefined
  )
}
