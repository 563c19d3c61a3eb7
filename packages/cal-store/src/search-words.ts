/** Words of a search string (split on white space, empty ones dropped, at most 20). */
export function searchWords(search: string | undefined): string[] {
  if (!search) return []
  return search.split(/\s+/u).filter(Boolean).slice(0, 20)
}

/** An ILIKE pattern matching `word` anywhere, with `%`, `_` and `\` escaped. */
export function containsPattern(word: string): string {
  return `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}
