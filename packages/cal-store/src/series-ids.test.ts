import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  decodeOccurrenceId,
  isEventId,
  KEY_SPACE,
  MAX_SERIES_SLOT,
  occurrenceId,
} from './series-ids.js'

describe('occurrence ids', () => {
  it('round-trip every slot and key, stay above serial ids and below 2^53', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: MAX_SERIES_SLOT }),
        fc.integer({ min: 0, max: KEY_SPACE - 1 }),
        (slot, key) => {
          const id = occurrenceId(slot, key)
          expect(id).toBeGreaterThan(2 ** 31)
          expect(Number.isSafeInteger(id)).toBe(true)
          expect(decodeOccurrenceId(id)).toEqual({ slot, key })
          expect(isEventId(id)).toBe(true)
        },
      ),
      {
        examples: [
          [1, 0],
          [MAX_SERIES_SLOT, KEY_SPACE - 1],
        ],
      },
    )
  })

  it('refuses what no occurrence can have', () => {
    for (const id of [0, -1, 5, 2 ** 31, KEY_SPACE - 1, 2 ** 53, 1.5, Number.NaN]) {
      expect(decodeOccurrenceId(id)).toBeUndefined()
    }
    expect(isEventId(5)).toBe(true)
    expect(isEventId(2 ** 31)).toBe(false)
  })
})
