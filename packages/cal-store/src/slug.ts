/**
 * A URL slug from a title or name: lowercase, accents folded (NFKD, combining marks removed),
 * every run of other characters than `a-z0-9` turned into one `-`, trimmed of `-`, at most 190
 * characters. Returns `fallback` when nothing is left (a title of only symbols or non-Latin
 * script).
 */
export function slugify(text: string, fallback: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/ß/g, 'ss')
    .replace(/æ/gi, 'ae')
    .replace(/ø/gi, 'o')
    .replace(/đ/gi, 'd')
    .replace(/ł/gi, 'l')
    .replace(/œ/gi, 'oe')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 190)
    .replace(/-+$/, '')
  return slug || fallback
}

/**
 * The first of `base`, `base-2`, `base-3`, … that is not in `taken`.
 */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`
    if (!taken.has(candidate)) return candidate
  }
}
