// How an AS is named on the page: "AS13335 Cloudflare, Inc.", or "AS64512" without a name.
// Names come from a registry file anyone can edit upstream, so they are text to show, never
// markup (the page writes them with textContent), and they must not rearrange what surrounds
// them: bidirectional controls are dropped and a right-to-left name is isolated.

// C0/C1 controls and line breaks become spaces; explicit direction marks and overrides go.
const CONTROLS = /[\p{Cc}\u2028\u2029]+/gu
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
// Hebrew, Arabic, Syriac, Thaana, NKo… and their presentation forms.
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]|\ud802[\udc00-\udfff]|\ud83a/

/** A registry name as one clean line of text (empty when nothing printable is left). */
export function displayName(name: string): string {
  return name.replace(BIDI_CONTROLS, '').replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim()
}

/**
 * `AS13335 Cloudflare, Inc.`; a right-to-left name sits between first-strong isolates (U+2068
 * … U+2069) so the number stays on the left of it; no name (or a blank one): `AS13335`.
 */
export function asLabel(asn: string, name: string | null | undefined): string {
  const clean = name ? displayName(name) : ''
  if (clean === '') return `AS${asn}`
  return RTL.test(clean) ? `AS${asn} \u2068${clean}\u2069` : `AS${asn} ${clean}`
}
