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

const EPOCH_1000 = Date.UTC(1000, 0, 1)

/** The key of a wall time `YYYY-MM-DD HH:MM[:SS]`: its minute since 1000-01-01 00:00. */
export function wallKey(wall: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}))?/.exec(wall)
  if (!m) throw new RangeError(`not a wall time: ${wall}`)
  const at = new Date(0)
  at.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  at.setUTCHours(Number(m[4] ?? 0), Number(m[5] ?? 0), 0, 0)
  return (at.getTime() - EPOCH_1000) / 60_000
}
