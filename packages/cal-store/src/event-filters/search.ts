import { flagBit } from '../event-list-row.js'
import { searchWords } from '../search-words.js'
import { defineFilter } from './event-filter.js'

interface Search {
  /**
   * Each must occur in title, description or excerpt (`search_text`, lowered by the
   * database), lowered as the database lowers (its `lower()` follows its locale).
   */
  words: string[]
  /** Leave password-protected events out (a search without a token). */
  publicOnly: boolean
}

const PROTECTED = flagBit('protected')

/** Search words, all required; protected events never match unless `privileged`. */
export const search = defineFilter<Search>({
  name: 'search',
  async resolve(filter, { lower }) {
    const words = searchWords(filter.search)
    return words.length ? { words: await lower(words), publicOnly: !filter.privileged } : undefined
  },
  scan({ words, publicOnly }, query) {
    for (const word of words) query.narrow(query.columns.slotsContaining(word))
    if (publicOnly) query.flag(PROTECTED, false)
  },
})
