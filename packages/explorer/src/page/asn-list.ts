/** How many ASNs the page charts at once (the limit, below the API's 100). */
export const MAX_ASNS = 10

/** What a typed or pasted list of ASNs parses to. */
export interface AsnListParse {
  /** Canonical decimal ASNs (no leading zeros), duplicates dropped, first order kept. */
  asns: string[]
  /** Tokens that are not an ASN number at all. */
  invalid: string[]
}

// "AS3356", "as174" and "15169" all name an AS; separators are commas, semicolons, whitespace.
// Leading zeros are dropped; more than 32 significant digits is not a number anyone means (and
// would only bloat the URL), so it is refused here rather than sent.
const TOKEN = /^(?:as)?0*(\d{1,32})$/i

/**
 * Parses `3356, 174 AS15169` into ASNs. Only the syntax is checked here: the range
 * (0..4294967295) is the API's rule and its 400 message is shown as it is.
 */
export function parseAsnList(text: string): AsnListParse {
  const asns: string[] = []
  const invalid: string[] = []
  for (const token of text.split(/[\s,;]+/)) {
    if (token === '') continue
    const asn = TOKEN.exec(token)?.[1]
    if (asn === undefined) {
      invalid.push(token)
      continue
    }
    if (!asns.includes(asn)) asns.push(asn)
  }
  return { asns, invalid }
}

/** Adds `extra` to `current` up to {@link MAX_ASNS}; returns the list and what did not fit. */
export function addAsns(current: string[], extra: string[]): { asns: string[]; dropped: string[] } {
  const asns = [...current]
  const dropped: string[] = []
  for (const asn of extra) {
    if (asns.includes(asn)) continue
    if (asns.length < MAX_ASNS) asns.push(asn)
    else dropped.push(asn)
  }
  return { asns, dropped }
}
