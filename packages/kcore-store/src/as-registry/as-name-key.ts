/**
 * The form of a name or a query the registry's name search compares: Unicode compatibility
 * decomposition without its combining marks (so `Telefónica` is `telefonica`, `ﬁ` is `fi`),
 * lower case, and every run of characters that are neither letters nor digits one space, trimmed
 * (so `Level 3 Communications, Inc.` is `level 3 communications inc`). One rule for stored names
 * and queries alike.
 */
export function asNameKey(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
}
