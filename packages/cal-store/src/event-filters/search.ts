import { sql } from 'kysely'
import { flagBit } from '../event-columns.js'
import { containsPattern, searchWords } from '../search-words.js'
import { defineFilter } from './event-filter.js'

interface Search {
  /** Each must occur in title, description or excerpt (`search_text`), case-insensitively. */
  words: string[]
  /** Leave password-protected events out (a search without a token). */
  publicOnly: boolean
}

const PROTECTED = flagBit('protected')

/** Search words, all required; protected events never match unless `privileged`. */
export const search = defineFilter<Search>({
  name: 'search',
  resolve(filter) {
    const words = searchWords(filter.search)
    return words.length ? { words, publicOnly: !filter.privileged } : undefined
  },
  where({ words, publicOnly }, { eb }) {
    const conditions = words.map((word) =>
      eb('e.search_text', 'like', sql<string>`lower(${containsPattern(word)})`),
    )
    if (publicOnly) conditions.push(eb('e.password_hash', 'is', null))
    return eb.and(conditions)
  },
  memory: {
    // The database lowers the words (its `lower()` follows its locale), as the SQL form does.
    prepare: async (value, { lower }) => ({ ...value, words: await lower(value.words) }),
    scan({ words, publicOnly }, query) {
      for (const word of words) query.narrow(query.columns.slotsContaining(word))
      if (publicOnly) query.flag(PROTECTED, false)
    },
  },
})
