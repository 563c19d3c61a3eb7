import { parseAsnList } from './asn-list.js'

/** The API's bound on `search` (`GET /api/asns?search=`, 1..200 characters). */
export const MAX_SEARCH_CHARS = 200

/**
 * What to search the registry for as the user types, or `null` for no suggestions: nothing
 * typed, or a list of two or more ASNs (`3356, 174`), which Enter adds as it is. A single
 * number is searched too: the registry answers that AS first, with its name.
 */
export function searchTextOf(typed: string): string | null {
  const text = typed.trim()
  if (text === '') return null
  const list = parseAsnList(text)
  if (list.invalid.length === 0 && list.asns.length > 1) return null
  // Cut on a code point, so a long paste never ends in half a surrogate pair.
  return Array.from(text).slice(0, MAX_SEARCH_CHARS).join('')
}

/**
 * The option highlighted after a key in a listbox of `count` options (`-1`: none, the input
 * keeps the text): the arrows move and wrap through "none". Other keys: unchanged.
 */
export function moveActive(active: number, key: string, count: number): number {
  if (count === 0) return -1
  switch (key) {
    case 'ArrowDown':
      return active + 1 >= count ? -1 : active + 1
    case 'ArrowUp':
      return active <= -1 ? count - 1 : active - 1
    default:
      return active
  }
}
